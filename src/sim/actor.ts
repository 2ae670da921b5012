import type { BaseQueue } from '../queue/base-queue.js';
import { createQueue } from '../queue/create-queue.js';
import { ActorTimers, SkewedClock } from './actor-time.js';
import type { SimConfig } from './config.js';
import type { Connection } from './connection.js';
import type { Kernel } from './kernel.js';
import { SimStore } from './sim-store.js';
import type { Topology } from './topology/topology.js';
import type { Trace } from './trace.js';

/** A client process: its own clock and timers, two connections, and one real queue instance. */
export class SimActor {
  readonly clock: SkewedClock;
  readonly timers: ActorTimers;
  readonly connections: Connection[];
  readonly queue: BaseQueue;
  crashed = false;

  constructor(
    readonly name: string,
    readonly zone: string,
    kernel: Kernel,
    topology: Topology,
    trace: Trace,
    config: SimConfig,
    runsReaper: boolean,
  ) {
    this.clock = new SkewedClock(kernel);
    this.timers = new ActorTimers(kernel);
    const t = config.topology;
    const connection = (role: 'quorum' | 'nonQuorum'): Connection => ({
      actor: name,
      zone,
      role,
      consistency: role === 'quorum' ? t.quorumConsistency : t.nonQuorumConsistency,
      timers: this.timers,
      nodeZone: zone,
    });
    this.connections = [connection('quorum'), connection('nonQuorum')];
    const storeOptions = {
      requestTimeoutMs: config.network.requestTimeoutMs,
      failoverOnRefused: config.network.clientFailover,
      zones: t.zones,
    };
    const [quorum, nonQuorum] = this.connections.map((c) => new SimStore(kernel, topology, c, trace, storeOptions)) as [
      SimStore,
      SimStore,
    ];
    const q = config.queue;
    this.queue = createQueue({
      name: 'sim',
      mode: q.mode,
      quorum,
      nonQuorum,
      shards: { allShards: t.zones, currentShard: zone },
      sharding: q.sharding,
      unackTimeout: q.unackTimeoutMs,
      unackInterval: runsReaper ? q.reaperIntervalMs : 0,
      serverTime: q.serverTime,
      durable: q.durable,
      clock: this.clock,
      timers: this.timers,
      pollInterval: config.workload.pollIntervalMs,
      onReaperError: (err) =>
        trace.record({ t: kernel.now, actor: name, op: 'reaper-error', result: err instanceof Error ? err.message : String(err) }),
    });
  }

  /** The process dies: no more callbacks, replies or timers; its leases stay in the store. */
  crash(): void {
    this.crashed = true;
    this.timers.stopped = true;
  }

  pause(untilTrueTime: number): void {
    this.timers.pausedUntil = Math.max(this.timers.pausedUntil, untilTrueTime);
  }

  /** Liveness phase: clocks resynced, home zone restored, pause over. */
  heal(): void {
    this.clock.offset = 0;
    this.timers.pausedUntil = 0;
    for (const c of this.connections) c.nodeZone = this.zone;
  }
}
