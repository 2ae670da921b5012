import { ActorTimers } from '../../src/sim/actor-time.js';
import type { Consistency } from '../../src/sim/connection.js';
import { Kernel } from '../../src/sim/kernel.js';
import { Network } from '../../src/sim/network.js';
import { Rng } from '../../src/sim/rng.js';
import { SimStore } from '../../src/sim/sim-store.js';
import { DynomiteTopology } from '../../src/sim/topology/dynomite.js';
import { PrimaryReplicaTopology } from '../../src/sim/topology/primary-replica.js';
import type { Topology } from '../../src/sim/topology/topology.js';
import { Trace } from '../../src/sim/trace.js';

export interface World {
  readonly kernel: Kernel;
  readonly network: Network;
  readonly topology: Topology;
  client(actor: string, zone: string, options?: { role?: 'quorum' | 'nonQuorum'; consistency?: Consistency; timeoutMs?: number }): SimStore;
  /** Runs virtual time forward by `ms`. */
  advance(ms: number): Promise<void>;
  /** Awaits a store call while virtual time runs. */
  settle<T>(p: Promise<T>, maxMs?: number): Promise<T>;
}

/** A small world with fixed latency (1 ms) and replication lag (`lagMs`), no randomness in play. */
export function world(kind: 'dynomite' | 'primary-replica', zones = ['a', 'b', 'c'], lagMs = 100): World {
  const kernel = new Kernel(1_700_000_000_000);
  const network = new Network(kernel, new Rng('fixture'), { baseMs: 1, jitterMs: 0 }, { meanMs: 0, spikeProbability: 0, spikeMs: 0 });
  network.extraLagMs = lagMs;
  const topology: Topology =
    kind === 'dynomite' ? new DynomiteTopology(kernel, network, zones) : new PrimaryReplicaTopology(kernel, network, zones, 1_000);
  const trace = new Trace(false);
  const advance = (ms: number) => kernel.runUntil(kernel.now + ms);
  return {
    kernel,
    network,
    topology,
    client(actor, zone, options = {}) {
      return new SimStore(
        kernel,
        topology,
        {
          actor,
          zone,
          role: options.role ?? 'quorum',
          consistency: options.consistency ?? 'DC_ONE',
          timers: new ActorTimers(kernel),
          nodeZone: zone,
        },
        trace,
        { requestTimeoutMs: options.timeoutMs ?? 500, failoverOnRefused: false, zones },
      );
    },
    advance,
    async settle<T>(p: Promise<T>, maxMs = 10_000): Promise<T> {
      let done = false;
      const tracked = p.finally(() => {
        done = true;
      });
      tracked.catch(() => undefined);
      await kernel.runUntil(kernel.now + maxMs, () => done);
      return tracked;
    },
  };
}
