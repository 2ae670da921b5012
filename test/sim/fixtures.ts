import { parseSimConfig } from '../../src/sim/run/config.js';
import type { Consistency } from '../../src/sim/store/connection.js';
import type { CallProbe, SimStore } from '../../src/sim/store/sim-store.js';
import { SimWorld } from '../../src/sim/run/world.js';

export interface World extends Omit<SimWorld, 'client'> {
  client(
    actor: string,
    zone: string,
    options?: { role?: 'quorum' | 'nonQuorum'; consistency?: Consistency; timeoutMs?: number; evalsha?: boolean; probe?: CallProbe },
  ): SimStore;
}

/** A small world with fixed latency (`latencyMs`, default 1 ms) and replication lag (`lagMs`), no randomness in play. */
export function world(kind: 'dynomite' | 'primary-replica', zones = ['a', 'b', 'c'], lagMs = 100, latencyMs = 1): World {
  const w = new SimWorld(
    parseSimConfig({
      seed: 'fixture',
      topology: { kind, zones, failoverDelayMs: 1_000 },
      network: { latencyBaseMs: latencyMs, latencyJitterMs: 0, lagMeanMs: 0, lagSpikeProbability: 0, requestTimeoutMs: 500, clientFailover: false },
    }),
  );
  w.network.extraLagMs = lagMs;
  const connect = w.client.bind(w);
  const client: World['client'] = (actor, zone, options = {}) =>
    connect(actor, zone, {
      role: options.role ?? 'quorum',
      consistency: options.consistency ?? 'DC_ONE',
      ...(options.timeoutMs !== undefined ? { requestTimeoutMs: options.timeoutMs } : {}),
      ...(options.evalsha ? { evalsha: true } : {}),
      ...(options.probe ? { probe: options.probe } : {}),
    });
  return Object.assign(w, { client });
}
