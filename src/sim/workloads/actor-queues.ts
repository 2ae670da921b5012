import type { BaseQueue } from '../../queue/base-queue.js';
import { createQueue } from '../../queue/create-queue.js';
import { shardingStrategy, type ShardingStrategy } from '../../queue/sharding.js';
import type { Clock, Timers } from '../../queue/time.js';
import type { Store } from '../../store/store.js';
import type { SimSettings } from '../settings/settings.js';
import { countingQueue } from './call-counter.js';

/** What a client process brings to its queues: where it is, its time, and how it reaches the store. */
export interface ActorQueueSetup {
  readonly config: SimSettings;
  readonly zone: string;
  readonly clock: Clock;
  readonly timers: Timers;
  /** A new quorum and non-quorum connection; `recorded` for the workload's queue (its calls are recorded), not the reaper's. */
  readonly stores: (recorded: boolean) => readonly [Store, Store];
  /** Records the shard the workload's queue picked for each message. */
  readonly shards: Map<string, string>;
  /** Counts the public methods the workload calls. */
  readonly calls: Map<string, number>;
  readonly runsReaper: boolean;
  readonly onReaperError: (err: unknown) => void;
  readonly randomId?: () => string;
}

/**
 * The queues of one client process, simulated or real: the workload's queue (counted, its shard picks
 * recorded, no reaper) and, for a consumer, a second queue on its own connections that runs the
 * un-ack reaper, so that the reaper's writes never blur the outcome of a recorded call.
 */
export function actorQueues(s: ActorQueueSetup): { readonly queue: BaseQueue; readonly reaper: BaseQueue | null } {
  const q = s.config.queue;
  const picks = shardingStrategy(q.sharding);
  const recording: ShardingStrategy = {
    name: picks.name,
    nextShard: (all, m) => {
      const shard = picks.nextShard(all, m);
      s.shards.set(m.id, shard);
      return shard;
    },
  };
  const queueFor = (recorded: boolean, reaperInterval: number, sharding: ShardingStrategy | typeof q.sharding) => {
    const [quorum, nonQuorum] = s.stores(recorded);
    return createQueue({
      name: 'sim',
      mode: q.mode,
      quorum,
      nonQuorum,
      shards: { allShards: s.config.topology.zones, currentShard: s.zone },
      sharding,
      unackTimeout: q.unackTimeoutMs,
      unackInterval: reaperInterval,
      serverTime: q.serverTime,
      durable: q.durable,
      clock: s.clock,
      timers: s.timers,
      ...(s.randomId ? { randomId: s.randomId } : {}),
      pollInterval: s.config.workload.pollIntervalMs,
      onReaperError: s.onReaperError,
    });
  };
  return {
    queue: countingQueue(queueFor(true, 0, recording), s.calls),
    reaper: s.runsReaper ? queueFor(false, q.reaperIntervalMs, q.sharding) : null,
  };
}
