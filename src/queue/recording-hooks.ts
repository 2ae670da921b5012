import type { ShardingStrategy } from './sharding.js';

/**
 * What a history recorder (`recordHistory` in `dynoq/testing`) needs to know of a queue that the
 * DynoQueue API does not say: the lease length, the reaper period, the shard it pops from, and the
 * shard its sharding strategy picked for each pushed message. `Symbol.for`: the same key in every
 * bundle of the package (dynoq and dynoq/testing are separate entry points).
 */
export const RECORDING_HOOKS = Symbol.for('dynoq.recordingHooks');

export type ShardListener = (id: string, shard: string) => void;

export interface RecordingHooks {
  readonly unackTimeoutMs: number;
  readonly reaperIntervalMs: number;
  /** The shard pop, bulkPop and consume take from. */
  readonly localShard: string;
  /** Called with every shard the sharding strategy picks for a pushed or ensured message. */
  readonly shardPicked: Set<ShardListener>;
}

/** The strategy, telling `listeners` what it picked. */
export function observedSharding(strategy: ShardingStrategy, listeners: ReadonlySet<ShardListener>): ShardingStrategy {
  return {
    name: strategy.name,
    nextShard(allShards, message) {
      const shard = strategy.nextShard(allShards, message);
      for (const listen of listeners) listen(message.id, shard);
      return shard;
    },
  };
}

/** The recording hooks of a dynoq queue (built by createQueue or createMultiQueue), or undefined. */
export function recordingHooksOf(queue: object): RecordingHooks | undefined {
  const hooks = (queue as { [RECORDING_HOOKS]?: unknown })[RECORDING_HOOKS];
  return typeof hooks === 'object' && hooks !== null ? (hooks as RecordingHooks) : undefined;
}
