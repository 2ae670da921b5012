import type { Message } from './message.js';

/** The zones a queue is sharded over, and the one this instance lives in (Dyno's ShardSupplier). */
export interface ShardSupplier {
  readonly allShards: readonly string[];
  readonly currentShard: string;
}

/** Picks the shard a pushed message goes to. */
export interface ShardingStrategy {
  readonly name: string;
  nextShard(allShards: readonly string[], message: Pick<Message, 'id'>): string;
}

/**
 * Dyno's RoundRobinStrategy, as written: it increments before reading, so the first push goes to
 * the second shard.
 */
export class RoundRobinSharding implements ShardingStrategy {
  readonly name = 'round-robin';
  private next = 0;

  nextShard(allShards: readonly string[]): string {
    let index = ++this.next;
    if (index >= allShards.length) {
      this.next = 0;
      index = 0;
    }
    return allShards[index]!;
  }
}

/** The same id always goes to the same shard (FNV-1a of the id). */
export class HashSharding implements ShardingStrategy {
  readonly name = 'hash';

  nextShard(allShards: readonly string[], message: Pick<Message, 'id'>): string {
    let h = 0x811c9dc5;
    for (let i = 0; i < message.id.length; i++) {
      h ^= message.id.charCodeAt(i);
      h = Math.imul(h, 0x01000193) >>> 0;
    }
    return allShards[h % allShards.length]!;
  }
}

export function shardingStrategy(kind: 'round-robin' | 'hash' | ShardingStrategy): ShardingStrategy {
  if (typeof kind !== 'string') return kind;
  return kind === 'hash' ? new HashSharding() : new RoundRobinSharding();
}
