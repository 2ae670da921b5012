import { parseStoredMessage, storedMessageJson } from './stored-message.js';
import { BaseQueue, lookupId } from './base-queue.js';
import { InvalidArgumentError } from './errors.js';
import type { PopOptions, ShardSize } from './dyno-queue.js';
import type { Message, MessageInput, PoppedMessage } from './message.js';
import { validateMessageInput } from './message.js';
import { keepLeased, type PoppedBatch } from './popped-batch.js';

/** Dyno's bound on one processUnacks / atomicProcessUnacks call: expired un-acks read, earliest deadline first. */
export const PROCESS_UNACKS_BATCH = 1_000;
const FIND_STALE_BATCH = 10;

/**
 * Dyno-queues v1 (RedisDynoQueue), step for step, for study — not for production. Reads that Dyno
 * makes through the local (non-quorum) connection go through `nonQuorum`, writes through `quorum`.
 * Score = now + timeout + priority/100. The quirks of the original are kept and marked where they
 * are; the harness exists to show what they cost.
 */
export class LegacyQueue extends BaseQueue {
  readonly mode = 'legacy' as const;
  /** Dyno's prefetchedIds: ids read from the local shard, not yet claimed. */
  private readonly prefetched: string[] = [];

  async push(messages: readonly MessageInput[]): Promise<string[]> {
    this.checkOpen();
    const valid = this.checkMessages(messages).map((m) => validateMessageInput(m, this.options));
    // Every shard is chosen (and checked) before anything is written: Dyno wrote the payload and
    // then ZADDed to whatever key the strategy named, stranding a message on an unknown shard.
    const placed = valid.map((m) => {
      const shard = this.sharding.nextShard(this.allShards, m);
      if (!this.allShards.includes(shard)) throw new InvalidArgumentError('sharding', `strategy returned unknown shard ${shard}`);
      return { m, shard };
    });
    const ids: string[] = [];
    for (const { m, shard } of placed) {
      await this.quorum.hset(this.keys.message, m.id, storedMessageJson({ ...m, shard }));
      const score = this.options.clock.now() + m.timeout + m.priority / 100;
      await this.quorum.zadd(this.keys.queue(shard), [{ score, member: m.id }]);
      ids.push(m.id);
    }
    return ids;
  }

  override async pop(count: number, options: PopOptions = {}): Promise<PoppedBatch> {
    this.checkOpen();
    this.checkPopOptions(options);
    if (count === 0) return [];
    return (await this.prefetchForPop(count, options)) ? this.claim(count) : [];
  }

  /** Dyno's bulkPop: prefetch, then claim the prefetched ids with atomicBulkPopScriptLocalOnly. */
  override async bulkPop(count: number, options: PopOptions = {}): Promise<PoppedBatch> {
    this.checkOpen();
    this.checkPopOptions(options);
    if (count === 0) return [];
    if (!(await this.prefetchForPop(count, options))) return [];
    const ids = this.prefetched.splice(0, Math.min(count, this.prefetched.length));
    if (ids.length === 0) return [];
    const now = this.options.clock.now();
    const unackScore = now + this.options.unackTimeout;
    const reply = await this.runScript(this.scripts.legacyBulkPop(ids, now + 1, unackScore));
    return ((reply as string[] | null) ?? [])
      .map((json) => parseStoredMessage(json))
      .filter((m): m is Message => m !== null)
      .map((m) => ({ ...m, leaseDeadline: unackScore }));
  }

  protected popOnce(count: number): Promise<PoppedBatch> {
    return this.claim(count);
  }

  /** The arguments of pop/bulkPop checked, then the prefetch; false when the signal had already aborted. */
  private async prefetchForPop(count: number, options: PopOptions): Promise<boolean> {
    this.checkOpen();
    this.checkCount(count);
    const wait = this.checkWait(options.wait ?? 0);
    if (options.signal?.aborted) return false;
    await this.prefetchUntil(count, wait, options.signal);
    return true;
  }

  /** Dyno's prefetchIds loop: top up the prefetch list until it holds `count` ids or wait passes. */
  private async prefetchUntil(count: number, wait: number, signal?: AbortSignal): Promise<void> {
    const clock = this.options.clock;
    const start = clock.now();
    await this.prefetch(count);
    while (this.prefetched.length < count && clock.now() - start < wait && !signal?.aborted && !this.isClosed) {
      await this.sleep(Math.min(this.options.pollInterval, wait - (clock.now() - start)), signal);
      // woken by abort or close: claim what is already prefetched, read nothing more
      if (signal?.aborted || this.isClosed) return;
      await this.prefetch(count);
    }
  }

  private async prefetch(count: number): Promise<void> {
    const want = count - this.prefetched.length;
    if (want <= 0) return;
    // Dyno peeks up to now + 1 so that the priority fraction of messages due now is included.
    const now = this.options.clock.now() + 1;
    const ids = await this.nonQuorum.zrangeByScore(this.keys.queue(this.localShard), 0, now, {
      offset: 0,
      count: want,
    });
    this.prefetched.push(...ids);
  }

  /**
   * Dyno's _pop: per id ZADD NX into un-ack, ZREM from the queue, HGET the payload. A store error
   * midway returns what was already claimed with the error attached (keepLeased), as a long-poll does.
   */
  private async claim(count: number): Promise<PoppedBatch> {
    const queueKey = this.keys.queue(this.localShard);
    const unackKey = this.keys.unack(this.localShard);
    const unackScore = this.options.clock.now() + this.options.unackTimeout;
    const popped: PoppedMessage[] = [];
    try {
      while (popped.length < count) {
        const id = this.prefetched.shift();
        if (id === undefined) break;
        const added = await this.quorum.zadd(unackKey, [{ score: unackScore, member: id }], { nx: true });
        if (added === 0) continue;
        const removed = await this.quorum.zrem(queueKey, [id]);
        if (removed === 0) continue;
        const message = parseStoredMessage(await this.quorum.hget(this.keys.message, id));
        if (message === null) continue;
        popped.push({ ...message, leaseDeadline: unackScore });
      }
    } catch (err) {
      return keepLeased(popped, err);
    }
    return popped;
  }

  async popWithMsgId(id: string): Promise<PoppedMessage | null> {
    this.checkOpen();
    if (lookupId(id) === null) return null;
    const queueKey = this.keys.queue(this.localShard);
    const unackKey = this.keys.unack(this.localShard);
    const unackScore = this.options.clock.now() + this.options.unackTimeout;
    if ((await this.nonQuorum.zrank(queueKey, id)) === null) return null;
    const json = await this.quorum.hget(this.keys.message, id);
    if (json === null) return null;
    if ((await this.quorum.zadd(unackKey, [{ score: unackScore, member: id }], { nx: true })) === 0) return null;
    if ((await this.quorum.zrem(queueKey, [id])) === 0) return null;
    const message = parseStoredMessage(json);
    return message && { ...message, leaseDeadline: unackScore };
  }

  async peek(count: number): Promise<Message[]> {
    this.checkOpen();
    this.checkCount(count);
    const now = this.options.clock.now() + 1;
    const ids = await this.nonQuorum.zrangeByScore(this.keys.queue(this.localShard), 0, now, { offset: 0, count });
    const out: Message[] = [];
    for (const id of ids) {
      const m = parseStoredMessage(await this.nonQuorum.hget(this.keys.message, id));
      if (m) out.push(m);
    }
    return out;
  }

  /** Legacy acks by id only: the token argument is ignored, as Dyno has none. Works after close(). */
  async ack(id: string): Promise<boolean> {
    if (lookupId(id) === null) return false;
    for (const shard of this.allShards) {
      if ((await this.quorum.zrem(this.keys.unack(shard), [id])) > 0) {
        await this.quorum.hdel(this.keys.message, [id]);
        return true;
      }
    }
    return false;
  }

  /** As Dyno: ZSCORE then a plain ZADD, so an ack between the two brings the entry back. */
  async setUnackTimeout(id: string, timeoutMs: number): Promise<boolean> {
    this.checkTimeout(timeoutMs);
    if (lookupId(id) === null) return false;
    const score = this.options.clock.now() + timeoutMs;
    for (const shard of this.allShards) {
      const key = this.keys.unack(shard);
      if ((await this.quorum.zscore(key, id)) !== null) {
        await this.quorum.zadd(key, [{ score, member: id }]);
        return true;
      }
    }
    return false;
  }

  /**
   * As Dyno, including `message.getPriority() / 100` being Java integer division: a rescheduled
   * message loses its priority fraction.
   */
  async setTimeout(id: string, timeoutMs: number): Promise<boolean> {
    this.checkOpen();
    this.checkTimeout(timeoutMs);
    if (lookupId(id) === null) return false;
    const message = parseStoredMessage(await this.nonQuorum.hget(this.keys.message, id));
    if (message === null) return false;
    for (const shard of this.allShards) {
      const key = this.keys.queue(shard);
      if ((await this.quorum.zscore(key, id)) !== null) {
        const priorityFraction = Math.trunc(message.priority / 100);
        const score = this.options.clock.now() + timeoutMs + priorityFraction;
        await this.quorum.zadd(key, [{ score, member: id }], { xx: true });
        await this.quorum.hset(this.keys.message, id, storedMessageJson({ ...message, timeout: timeoutMs }));
        return true;
      }
    }
    return false;
  }

  /**
   * Legacy has no token: releases whatever lease the id has, as several steps — ZREM from un-ack,
   * then (payload still there) ZADD back to that shard's queue at now + priority/100. Works after close().
   */
  async release(id: string): Promise<boolean> {
    if (lookupId(id) === null) return false;
    for (const shard of this.allShards) {
      if ((await this.quorum.zrem(this.keys.unack(shard), [id])) > 0) {
        const message = parseStoredMessage(await this.quorum.hget(this.keys.message, id));
        if (message === null) return false;
        const score = this.options.clock.now() + message.priority / 100;
        await this.quorum.zadd(this.keys.queue(shard), [{ score, member: id }]);
        return true;
      }
    }
    return false;
  }

  /** Dyno's atomicRemove: ZREM from every shard's un-ack and queue and HDEL, in one script. */
  async atomicRemove(id: string): Promise<boolean> {
    this.checkOpen();
    if (lookupId(id) === null) return false;
    return (await this.runScript(this.scripts.legacyRemove(id))) === 1;
  }

  async remove(id: string): Promise<boolean> {
    this.checkOpen();
    if (lookupId(id) === null) return false;
    for (const shard of this.allShards) {
      await this.quorum.zrem(this.keys.unack(shard), [id]);
      if ((await this.quorum.zrem(this.keys.queue(shard), [id])) > 0) {
        await this.quorum.hdel(this.keys.message, [id]);
        return true;
      }
    }
    return false;
  }

  async ensure(message: MessageInput): Promise<boolean> {
    this.checkOpen();
    const m = validateMessageInput(message, this.options);
    for (const shard of this.allShards) {
      if ((await this.quorum.zscore(this.keys.queue(shard), m.id)) !== null) return false;
      if ((await this.quorum.zscore(this.keys.unack(shard), m.id)) !== null) return false;
    }
    await this.push([m]);
    return true;
  }

  protected localPredicateSets(): string[] {
    return [this.keys.queue(this.localShard)];
  }

  async size(): Promise<number> {
    this.checkOpen();
    let total = 0;
    for (const shard of this.allShards) total += await this.nonQuorum.zcard(this.keys.queue(shard));
    return total;
  }

  async shardSizes(): Promise<Record<string, ShardSize>> {
    this.checkOpen();
    const out: Record<string, ShardSize> = {};
    for (const shard of this.allShards) {
      out[shard] = {
        size: await this.nonQuorum.zcard(this.keys.queue(shard)),
        uacked: await this.nonQuorum.zcard(this.keys.unack(shard)),
      };
    }
    return out;
  }

  async clear(): Promise<void> {
    this.checkOpen();
    const keys = this.allShards.flatMap((s) => this.shardSetKeys(s));
    await this.quorum.del([...keys, this.keys.message]);
    this.prefetched.length = 0;
  }

  /** Dyno's processUnacks: expired un-acks of the local shard back to its queue, one step at a time. */
  async processUnacks(): Promise<number> {
    this.checkOpen();
    const unackKey = this.keys.unack(this.localShard);
    const queueKey = this.keys.queue(this.localShard);
    const now = this.options.clock.now();
    const unacks = await this.nonQuorum.zrangeByScoreWithScores(unackKey, 0, now, {
      offset: 0,
      count: PROCESS_UNACKS_BATCH,
    });
    let moved = 0;
    for (const { member, score } of unacks) {
      if ((await this.quorum.hget(this.keys.message, member)) === null) {
        await this.quorum.zrem(unackKey, [member]);
        continue;
      }
      const added = await this.quorum.zadd(queueKey, [{ score, member }]);
      const removed = await this.quorum.zrem(unackKey, [member]);
      if (added > 0 && removed > 0) moved++;
    }
    return moved;
  }

  async atomicProcessUnacks(): Promise<number> {
    this.checkOpen();
    const reply = await this.runScript(this.scripts.legacyProcessUnacks(this.options.clock.now(), PROCESS_UNACKS_BATCH));
    return Number(reply ?? 0);
  }

  async findStaleMessages(): Promise<string[]> {
    this.checkOpen();
    const now = this.options.clock.now();
    const stale: string[] = [];
    for (const shard of this.allShards) {
      const queueKey = this.keys.queue(shard);
      const ids = await this.nonQuorum.zrangeByScore(queueKey, 0, now, { offset: 0, count: FIND_STALE_BATCH });
      if (ids.length === 0) continue;
      const reply = await this.runScript(this.scripts.legacyFindStale(shard, ids));
      stale.push(...((reply as string[] | null) ?? []));
    }
    return stale;
  }

  protected reap(): Promise<number> {
    return this.options.singleRingTopology ? this.atomicProcessUnacks() : this.processUnacks();
  }
}
