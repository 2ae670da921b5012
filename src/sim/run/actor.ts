import type { BaseQueue } from '../../queue/base-queue.js';
import { actorQueues } from '../workloads/actor-queues.js';
import { ActorTimers, SkewedClock } from '../kernel/actor-time.js';
import type { Connection, ConnectionReset } from '../store/connection.js';
import { CallProbe, type SimStore } from '../store/sim-store.js';
import type { SimWorld } from './world.js';

/**
 * A client process: its own clock and timers, and the real queue. Calls the workload makes go
 * through `queue`, whose connections report to `probe` what each call wrote; the un-ack reaper runs
 * in the same process on its own queue instance and connections, so that its writes never blur the
 * outcome of a call.
 */
export class SimActor {
  readonly clock: SkewedClock;
  readonly timers: ActorTimers;
  readonly probe = new CallProbe();
  readonly connections: Connection[] = [];
  readonly queue: BaseQueue;
  private readonly reaper: BaseQueue | null;
  /** The shard the queue picked for each message this client pushed (the latest pick per id). */
  readonly shards = new Map<string, string>();
  /** Public queue methods the workload called on this client, and how often. */
  readonly calls = new Map<string, number>();
  crashed = false;
  /** On the recorded calls' quorum connection (pops' scripts and claims): resetConnectionAt arms it. */
  private readonly reset: ConnectionReset = { left: 0 };
  /** Called once when the process dies. */
  onCrash: (() => void) | null = null;

  constructor(
    readonly name: string,
    readonly zone: string,
    world: SimWorld,
    runsReaper: boolean,
  ) {
    const { kernel, trace } = world;
    this.clock = new SkewedClock(kernel);
    this.timers = new ActorTimers(kernel);
    const pair = (probe?: CallProbe): [SimStore, SimStore] => {
      const stores = (['quorum', 'nonQuorum'] as const).map((role) =>
        world.client(name, zone, { role, timers: this.timers, ...(probe ? { probe } : {}) }),
      ) as [SimStore, SimStore];
      for (const s of stores) {
        this.connections.push(s.connection);
        if (probe && s.connection.role === 'quorum') s.connection.reset = this.reset;
      }
      return stores;
    };
    const queues = actorQueues({
      config: world.config,
      zone,
      clock: this.clock,
      timers: this.timers,
      stores: (recorded) => pair(recorded ? this.probe : undefined),
      shards: this.shards,
      calls: this.calls,
      runsReaper,
      randomId: world.randomId,
      onReaperError: (err) =>
        trace.record({ t: kernel.now, actor: name, op: 'reaper-error', result: err instanceof Error ? err.message : String(err) }),
    });
    this.queue = queues.queue;
    this.reaper = queues.reaper;
  }

  sleep(ms: number): Promise<void> {
    return new Promise((resolve) => this.timers.setTimeout(resolve, ms));
  }

  resetConnectionAt(nth: number): void {
    this.reset.left = nth;
  }

  get runsReaper(): boolean {
    return this.reaper !== null;
  }

  /** The process dies: no more callbacks, replies or timers; its leases stay in the store. */
  crash(): void {
    if (this.crashed) return;
    this.crashed = true;
    this.timers.stopped = true;
    this.onCrash?.();
  }

  pause(untilTrueTime: number): void {
    this.timers.pausedUntil = Math.max(this.timers.pausedUntil, untilTrueTime);
  }
}
