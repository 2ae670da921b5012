import type { Store } from '../store/store.js';
import type { BaseQueue } from './base-queue.js';
import { createQueue } from './create-queue.js';
import type { AckAndPop, AckItem, AckManyAndPop, ConsumeOptions, DynoQueue, PopOptions, QueueMode, ShardSize } from './dyno-queue.js';
import { InvalidArgumentError } from './errors.js';
import type { Message, MessageInput, PoppedMessage } from './message.js';
import { DEFAULT_MAX_PAYLOAD_BYTES, validateMessageInput } from './message.js';
import type { PoppedBatch } from './popped-batch.js';
import type { QueueOptionsInput } from './options.js';
import type { ShardingStrategy } from './sharding.js';
import { shardingStrategy } from './sharding.js';
import { RECORDING_HOOKS, observedSharding, recordingHooksOf, type RecordingHooks, type ShardListener } from './recording-hooks.js';

/** One shard of a multi-master queue: its name and the store (Redis server or Cluster) it lives on. */
export interface MultiQueueShard {
  readonly name: string;
  readonly store: Store;
  /** Defaults to `store`. */
  readonly nonQuorum?: Store;
}

export type MultiQueueOptions = Omit<QueueOptionsInput, 'quorum' | 'nonQuorum' | 'shards' | 'sharding'> & {
  readonly shards: readonly MultiQueueShard[];
  /** The shard this instance pops from. */
  readonly currentShard: string;
  readonly sharding?: 'round-robin' | 'hash' | ShardingStrategy;
};

/**
 * One queue over several Redis masters, as Dyno-queues v2's MultiRedisQueue: each shard is its own
 * single-shard queue on its own store, named `<name>:<shard>`, so with `hashTag: true` every shard's
 * keys — its payloads included — share the hash tag `{<name>:<shard>}`: one Cluster slot per shard,
 * different shards on different slots (and so, as the Cluster places them, on different masters).
 * A push goes to the shard the sharding strategy picks; pop, peek and the predicates' pops use this
 * instance's shard; lookups (ack, release, get, remove, …) try this shard first, then the others.
 *
 * What spans shards is not atomic: a push batch split over shards is one script per shard (a
 * failure may leave the earlier shards written), `ensure` checks the shards then pushes, and the
 * same id pushed twice to different shards is two messages (a shard's own push dedupes only itself).
 */
export class MultiQueue implements DynoQueue {
  readonly name: string;
  readonly mode: QueueMode;
  private readonly byShard = new Map<string, BaseQueue>();
  private readonly local: BaseQueue;
  private readonly shardNames: string[];
  private readonly sharding: ShardingStrategy;
  /** For recordHistory (dynoq/testing): lease length, reaper period, and the shard picked per push. */
  readonly [RECORDING_HOOKS]: RecordingHooks;
  private readonly limits: { maxPayloadBytes: number };

  constructor(options: MultiQueueOptions) {
    const { shards, currentShard, sharding, ...rest } = options;
    if (!Array.isArray(shards) || shards.length === 0) throw new InvalidArgumentError('option shards', 'at least one shard');
    this.shardNames = shards.map((s) => s.name);
    if (new Set(this.shardNames).size !== this.shardNames.length) throw new InvalidArgumentError('option shards', 'shard names must be unique');
    if (!this.shardNames.includes(currentShard)) throw new InvalidArgumentError('option currentShard', 'must be one of the shards');
    const shardPicked = new Set<ShardListener>();
    this.sharding = observedSharding(shardingStrategy(sharding ?? 'round-robin'), shardPicked);
    this.limits = { maxPayloadBytes: rest.maxPayloadBytes ?? DEFAULT_MAX_PAYLOAD_BYTES };
    for (const shard of shards) {
      const queue = createQueue({
        ...rest,
        name: `${rest.name}:${shard.name}`,
        quorum: shard.store,
        ...(shard.nonQuorum ? { nonQuorum: shard.nonQuorum } : {}),
        shards: { allShards: [shard.name], currentShard: shard.name },
        // only this instance's shard is reaped here (as each Dyno instance reaps its own)
        ...(shard.name === currentShard ? {} : { unackInterval: 0 }),
      } as QueueOptionsInput);
      this.byShard.set(shard.name, queue);
    }
    this.local = this.byShard.get(currentShard)!;
    this.name = rest.name;
    this.mode = this.local.mode;
    const local = recordingHooksOf(this.local)!;
    this[RECORDING_HOOKS] = { unackTimeoutMs: local.unackTimeoutMs, reaperIntervalMs: local.reaperIntervalMs, localShard: currentShard, shardPicked };
  }

  /** The local shard's queue first, then the others. */
  private get ordered(): BaseQueue[] {
    return [this.local, ...[...this.byShard.values()].filter((q) => q !== this.local)];
  }

  /** The first shard's answer that is not null/false, trying the local shard first. */
  private async first<T>(ask: (q: BaseQueue) => Promise<T>): Promise<T> {
    let last!: T;
    for (const q of this.ordered) {
      last = await ask(q);
      if (last !== null && last !== false) return last;
    }
    return last;
  }

  async push(messages: readonly MessageInput[]): Promise<string[]> {
    if (!Array.isArray(messages)) throw new InvalidArgumentError('messages', 'must be an array of messages');
    const valid = messages.map((m) => validateMessageInput(m, this.limits));
    const groups = new Map<string, MessageInput[]>();
    for (let i = 0; i < valid.length; i++) {
      const shard = this.sharding.nextShard(this.shardNames, valid[i]!);
      if (!this.byShard.has(shard)) throw new InvalidArgumentError('sharding', `strategy returned unknown shard ${shard}`);
      groups.set(shard, [...(groups.get(shard) ?? []), messages[i]!]);
    }
    for (const [shard, group] of groups) await this.byShard.get(shard)!.push(group);
    return valid.map((m) => m.id);
  }

  pop(count: number, options?: PopOptions): Promise<PoppedBatch> {
    return this.local.pop(count, options);
  }
  bulkPop(count: number, options?: PopOptions): Promise<PoppedBatch> {
    return this.local.bulkPop(count, options);
  }
  popWithMsgId(id: string): Promise<PoppedMessage | null> {
    return this.local.popWithMsgId(id);
  }
  peek(count: number): Promise<Message[]> {
    return this.local.peek(count);
  }
  ack(id: string, token?: string): Promise<boolean> {
    return this.first((q) => q.ack(id, token));
  }
  async ackMany(items: readonly AckItem[]): Promise<boolean[]> {
    if (!Array.isArray(items)) throw new InvalidArgumentError('items', 'must be an array of { id, token? }');
    return this.ackRestElsewhere(items, await this.local.ackMany(items));
  }
  release(id: string, token?: string): Promise<boolean> {
    return this.first((q) => q.release(id, token));
  }
  getUnackTime(id: string): Promise<number | null> {
    return this.first((q) => q.getUnackTime(id));
  }
  async ackAndPop(id: string, token: string | undefined, count: number): Promise<AckAndPop> {
    const local = await this.local.ackAndPop(id, token, count);
    if (local.acked) return local;
    for (const q of this.ordered.slice(1)) if (await q.ack(id, token)) return { acked: true, messages: local.messages };
    return local;
  }
  /** The local master acks and pops in one call; an item it did not hold is tried on the others. */
  async ackManyAndPop(items: readonly AckItem[], count: number): Promise<AckManyAndPop> {
    const local = await this.local.ackManyAndPop(items, count);
    return { acked: await this.ackRestElsewhere(items, local.acked), messages: local.messages };
  }

  /** The items the local master did not ack, tried on each other master in turn: one ackMany per master. */
  private async ackRestElsewhere(items: readonly AckItem[], localAcked: readonly boolean[]): Promise<boolean[]> {
    const acked = [...localAcked];
    for (const q of this.ordered.slice(1)) {
      const rest = items.flatMap((item, i) => (acked[i] ? [] : [{ item, i }]));
      if (rest.length === 0) break;
      (await q.ackMany(rest.map((r) => r.item))).forEach((a, j) => (acked[rest[j]!.i] ||= a));
    }
    return acked;
  }
  setUnackTimeout(id: string, timeoutMs: number, token?: string): Promise<boolean> {
    return this.first((q) => q.setUnackTimeout(id, timeoutMs, token));
  }
  setTimeout(id: string, timeoutMs: number): Promise<boolean> {
    return this.first((q) => q.setTimeout(id, timeoutMs));
  }
  remove(id: string, token?: string): Promise<boolean> {
    return this.first((q) => q.remove(id, token));
  }
  atomicRemove(id: string): Promise<boolean> {
    return this.first((q) => q.atomicRemove(id));
  }
  async ensure(message: MessageInput): Promise<boolean> {
    const m = validateMessageInput(message, this.limits);
    if ((await this.first((q) => q.get(m.id))) !== null) return false;
    const shard = this.sharding.nextShard(this.shardNames, m);
    const queue = this.byShard.get(shard);
    if (!queue) throw new InvalidArgumentError('sharding', `strategy returned unknown shard ${shard}`);
    return queue.ensure(message);
  }
  containsPredicate(pattern: string, localShardOnly = false): Promise<boolean> {
    return localShardOnly ? this.local.containsPredicate(pattern) : this.first((q) => q.containsPredicate(pattern));
  }
  getMsgWithPredicate(pattern: string, localShardOnly = false): Promise<Message | null> {
    return localShardOnly ? this.local.getMsgWithPredicate(pattern) : this.first((q) => q.getMsgWithPredicate(pattern));
  }
  /** Pops only from this instance's shard (Dyno pops only locally). */
  popMsgWithPredicate(pattern: string): Promise<PoppedMessage | null> {
    return this.local.popMsgWithPredicate(pattern);
  }
  get(id: string): Promise<Message | null> {
    return this.first((q) => q.get(id));
  }
  localGet(id: string): Promise<Message | null> {
    return this.first((q) => q.localGet(id));
  }
  async getAllMessages(): Promise<Message[]> {
    const out: Message[] = [];
    for (const q of this.ordered) out.push(...(await q.getAllMessages()));
    return out;
  }
  async size(): Promise<number> {
    let total = 0;
    for (const q of this.ordered) total += await q.size();
    return total;
  }
  async shardSizes(): Promise<Record<string, ShardSize>> {
    const out: Record<string, ShardSize> = {};
    for (const q of this.byShard.values()) Object.assign(out, await q.shardSizes());
    return out;
  }
  async clear(): Promise<void> {
    for (const q of this.ordered) await q.clear();
  }
  processUnacks(): Promise<number> {
    return this.local.processUnacks();
  }
  atomicProcessUnacks(): Promise<number> {
    return this.local.atomicProcessUnacks();
  }
  async findStaleMessages(): Promise<string[]> {
    const out: string[] = [];
    for (const q of this.ordered) out.push(...(await q.findStaleMessages()));
    return out;
  }
  consume(options?: ConsumeOptions): AsyncIterableIterator<PoppedMessage> {
    return this.local.consume(options);
  }
  async close(): Promise<void> {
    for (const q of this.byShard.values()) await q.close();
  }
}

/** A queue over several stores / Cluster slots (Dyno v2's MultiRedisQueue). Options are validated by each shard's queue. */
export function createMultiQueue(options: MultiQueueOptions): MultiQueue {
  return new MultiQueue(options);
}
