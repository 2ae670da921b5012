import type { ScriptReply } from '../redis/script.js';
import { parseStoredMessage, storedMessageJson } from './stored-message.js';
import { BaseQueue, lookupId } from './base-queue.js';
import type { ScriptCall } from './scripts/queue-scripts.js';
import { PROMOTE_BATCH } from './scripts/atomic-common.js';
import type { AckAndPop, AckItem, AckManyAndPop, ShardSize } from './dyno-queue.js';
import { DurabilityError, InvalidArgumentError, UnsupportedOnStoreError } from './errors.js';
import type { QueueOptions } from './options.js';
import type { Message, MessageInput, PoppedMessage } from './message.js';
import { validateMessageInput } from './message.js';
import { StoreFullError } from '../store/errors.js';
import { chunked, POP_SCRIPT_COUNT, PUSH_SCRIPT_BYTES, PUSH_SCRIPT_MESSAGES, REQUEUE_SCRIPT_COUNT } from './limits.js';
import { shownValue } from './shown-value.js';

const FIND_STALE_LIMIT = 1_000;
/** Entries per page of the stale walk (HSCAN / ZSCAN COUNT). */
const STALE_PAGE = 200;

/**
 * The default mode: every state change is one script on one slot; due messages come out by
 * (priority, push order); pops hand out lease tokens that ack / setUnackTimeout honour; the reaper
 * re-checks expiry inside its script; a re-queued message keeps its priority.
 */
/** Acks per ackManyAndPop script call: bounds one call's work (and Redis's busy time) as PROMOTE_BATCH does. */
const ACK_BATCH = 500;

export class AtomicQueue extends BaseQueue {
  readonly mode = 'atomic' as const;
  /** The last ordering key handed out: ordering keys of one instance strictly increase. */
  private lastOrd = 0;
  /** The last lease token randomId gave: the next must differ (a source that repeats is refused). */
  private lastToken: string | undefined;
  protected override readonly popScriptCount = POP_SCRIPT_COUNT;

  constructor(options: QueueOptions) {
    for (const store of new Set([options.quorum, options.nonQuorum ?? options.quorum])) {
      if (store.replication !== 'dynomite') continue;
      if (options.serverTime) {
        throw new UnsupportedOnStoreError(
          'serverTime',
          'Dynomite',
          "every replica re-runs the script with its own clock (TIME inside a script is each replica's), so deadlines and replies would differ per replica; use the client clock",
        );
      }
      if (options.durable) {
        throw new UnsupportedOnStoreError('durable', 'Dynomite', 'Dynomite has no WAIT (it closes the connection, after the write was applied)');
      }
    }
    super(options);
  }

  /**
   * The ordering key of a push: the client's clock in ms, bumped past the previous one so that one
   * instance's pushes keep their order within a millisecond. It is an argument of the script, never
   * a server-side counter, so every replica that re-executes the push ranks it the same.
   */
  private nextOrd(): number {
    this.lastOrd = Math.max(Math.floor(this.options.clock.now()), this.lastOrd + 1);
    return this.lastOrd;
  }

  /**
   * A fresh lease token from `randomId`, checked before any script runs: a non-empty string of at
   * most 256 characters that differs from the one before (`() => 't'` would give every lease one token).
   */
  private nextToken(): string {
    const token: unknown = this.options.randomId();
    if (typeof token !== 'string' || token.length === 0 || token.length > 256) {
      throw new InvalidArgumentError('randomId', `must return a non-empty string of at most 256 characters (returned ${shownValue(token)})`);
    }
    if (token === this.lastToken) {
      throw new InvalidArgumentError('randomId', `returned ${JSON.stringify(token)} twice in a row: lease tokens must never repeat`);
    }
    this.lastToken = token;
    return token;
  }

  /** With requireLeaseToken, a call that acts on a lease must name it. */
  private checkToken(token: string | undefined, operation: string): string {
    if (token === undefined || token === '') {
      if (this.options.requireLeaseToken) throw new InvalidArgumentError('token', `${operation} needs the lease token: the queue was created with requireLeaseToken`);
      return '';
    }
    return token;
  }

  private async confirmDurable(operation: string, ids: readonly string[]): Promise<void> {
    const durable = this.options.durable;
    if (!durable || ids.length === 0) return;
    const confirmed = await this.quorum.wait(durable.replicas, durable.timeoutMs);
    if (confirmed < durable.replicas) throw new DurabilityError(operation, ids, durable.replicas, confirmed);
  }

  /**
   * A write that durable mode must confirm: on a store that can (IoredisStore), the script and its
   * WAIT go down one connection to the node that ran the script (Redis Cluster included); otherwise
   * runScript, then WAIT. `succeeded` says whether the reply is a write worth confirming.
   */
  private async durableWrite(
    call: ScriptCall,
    operation: string,
    ids: (reply: ScriptReply) => readonly string[],
  ): Promise<ScriptReply> {
    const durable = this.options.durable;
    if (!durable || !this.quorum.runScriptThenWait) {
      const reply = await this.runScript(call);
      await this.confirmDurable(operation, ids(reply));
      return reply;
    }
    const { reply, confirmed } = await this.quorum.runScriptThenWait(call.script, call.keys, call.args, durable.replicas, durable.timeoutMs);
    const written = ids(reply);
    if (written.length > 0 && confirmed < durable.replicas) throw new DurabilityError(operation, written, durable.replicas, confirmed);
    return reply;
  }

  /**
   * Validates every message first (nothing is written if one is bad), then writes them in order,
   * one script per PUSH_SCRIPT_MESSAGES messages or PUSH_SCRIPT_BYTES stored bytes: each script is
   * atomic; a store error stops the push with the earlier scripts' messages written.
   */
  private async write(messages: readonly MessageInput[], onlyIfAbsent: boolean): Promise<{ ids: string[]; written: number }> {
    const valid = this.checkMessages(messages).map((m) => validateMessageInput(m, this.options));
    const ids = valid.map((m) => m.id);
    if (valid.length === 0) return { ids, written: 0 };
    const entries = valid.map((m) => {
      const shard = this.sharding.nextShard(this.allShards, m);
      const shardIndex = this.allShards.indexOf(shard) + 1;
      if (shardIndex === 0) throw new InvalidArgumentError('sharding', `strategy returned unknown shard ${shard}`);
      return { shardIndex, id: m.id, priority: m.priority, timeout: m.timeout, json: storedMessageJson({ ...m, shard }), ord: this.nextOrd() };
    });
    let written = 0;
    const done: string[] = [];
    for (const part of chunked(entries, PUSH_SCRIPT_MESSAGES, PUSH_SCRIPT_BYTES, (e) => e.json.length * 3)) {
      const partIds = part.map((e) => e.id);
      try {
        written += Number(await this.durableWrite(this.scripts.push(part, onlyIfAbsent), 'push', () => partIds));
      } catch (err) {
        // A full Redis refuses one script whole: say which of the earlier scripts' messages it holds.
        if (err instanceof StoreFullError && done.length > 0) throw new StoreFullError(err.reply, done);
        throw err;
      }
      done.push(...partIds);
    }
    return { ids, written };
  }

  async push(messages: readonly MessageInput[]): Promise<string[]> {
    this.checkOpen();
    return (await this.write(messages, false)).ids;
  }

  async ensure(message: MessageInput): Promise<boolean> {
    this.checkOpen();
    return (await this.write([message], true)).written > 0;
  }

  protected async popOnce(count: number): Promise<PoppedMessage[]> {
    const n = Math.min(count, POP_SCRIPT_COUNT);
    return leasedMessages(await this.runScript(this.scripts.pop(n, this.options.unackTimeout, this.nextToken())));
  }

  async popWithMsgId(id: string): Promise<PoppedMessage | null> {
    this.checkOpen();
    const key = lookupId(id);
    if (key === null) return null;
    return leasedMessages(await this.runScript(this.scripts.popById(key, this.options.unackTimeout, this.nextToken())))[0] ?? null;
  }

  async peek(count: number): Promise<Message[]> {
    this.checkOpen();
    this.checkCount(count);
    const flat = (await this.runScript(this.scripts.peek(count))) as string[];
    // [id, payload]* : the payloads are at the odd positions
    return flat
      .filter((_, i) => i % 2 === 1)
      .map((json) => parseStoredMessage(json))
      .filter((m): m is Message => m !== null);
  }

  /** Works after close(): the queue's store is the caller's, and a message in hand must be ackable. */
  async ack(id: string, token?: string): Promise<boolean> {
    const given = this.checkToken(token, 'ack');
    const key = lookupId(id);
    if (key === null) return false;
    const reply = await this.durableWrite(this.scripts.ack(key, given), 'ack', (r) => (r === 1 ? [key] : []));
    return reply === 1;
  }

  /** One script call per ACK_BATCH acks (ids that cannot exist are not sent). Works after close(). */
  override async ackMany(items: readonly AckItem[]): Promise<boolean[]> {
    this.checkAckItems(items);
    for (const item of items) this.checkToken(item.token, 'ackMany');
    const acked = items.map(() => false);
    for (let start = 0; start < items.length; start += ACK_BATCH) {
      const part = items.slice(start, start + ACK_BATCH);
      const reply = await this.ackBatch(part, 0);
      reply.acked.forEach((a, i) => (acked[start + i] = a));
    }
    return acked;
  }

  override async ackManyAndPop(items: readonly AckItem[], count: number): Promise<AckManyAndPop> {
    this.checkOpen();
    this.checkAckItems(items);
    for (const item of items) this.checkToken(item.token, 'ackManyAndPop');
    this.checkCount(count);
    if (items.length > ACK_BATCH || count > POP_SCRIPT_COUNT) return { acked: await this.ackMany(items), messages: await this.pop(count) };
    return this.ackBatch(items, count);
  }

  /** Acks up to ACK_BATCH items and leases up to `count` (0: none) in one script call. */
  private async ackBatch(items: readonly AckItem[], count: number): Promise<AckManyAndPop> {
    const sent = items.flatMap((item, i) => {
      const key = lookupId(item.id);
      return key === null ? [] : [{ i, key, token: item.token ?? '' }];
    });
    const acked = items.map(() => false);
    if (sent.length === 0 && count === 0) return { acked, messages: [] };
    const call = this.scripts.ackManyAndPop(sent.map((s) => [s.key, s.token] as const), count, this.options.unackTimeout, count > 0 ? this.nextToken() : '');
    const reply = (await this.durableWrite(call, 'ack', (r) => sent.filter((_, j) => (r as ScriptReply[])[j] === 1).map((s) => s.key))) as ScriptReply[];
    sent.forEach((s, j) => (acked[s.i] = reply[j] === 1));
    return { acked, messages: count > 0 ? leasedMessages(reply.slice(sent.length)) : [] };
  }

  /** Hands a lease back: visible again now, rank kept. Given a token, only while that lease is current. Works after close(). */
  async release(id: string, token?: string): Promise<boolean> {
    const given = this.checkToken(token, 'release');
    const key = lookupId(id);
    if (key === null) return false;
    return (await this.runScript(this.scripts.release(key, given))) === 1;
  }

  override async ackAndPop(id: string, token: string | undefined, count: number): Promise<AckAndPop> {
    this.checkOpen();
    const given = this.checkToken(token, 'ackAndPop');
    if (lookupId(id) === null) return { acked: false, messages: await this.pop(count) };
    this.checkCount(count);
    if (count > POP_SCRIPT_COUNT) return { acked: await this.ack(id, given), messages: await this.pop(count) };
    const reply = (await this.durableWrite(this.scripts.ackAndPop(id, given, count, this.options.unackTimeout, this.nextToken()), 'ack', (r) =>
      (r as ScriptReply[])[0] === 1 ? [id] : [],
    )) as ScriptReply[];
    return { acked: reply[0] === 1, messages: leasedMessages(reply.slice(1)) };
  }

  /** Works after close(), as ack does. */
  async setUnackTimeout(id: string, timeoutMs: number, token?: string): Promise<boolean> {
    this.checkTimeout(timeoutMs);
    const given = this.checkToken(token, 'setUnackTimeout');
    if (lookupId(id) === null) return false;
    return (await this.runScript(this.scripts.extendLease(id, given, timeoutMs))) === 1;
  }

  /** Reschedules a queued message; the stored `timeout` field keeps the delay given at push. */
  async setTimeout(id: string, timeoutMs: number): Promise<boolean> {
    this.checkOpen();
    this.checkTimeout(timeoutMs);
    if (lookupId(id) === null) return false;
    return (await this.runScript(this.scripts.reschedule(id, timeoutMs))) === 1;
  }

  /** Given a token, removes a leased message only under that lease; with requireLeaseToken, a leased message only so. */
  async remove(id: string, token?: string): Promise<boolean> {
    this.checkOpen();
    const key = lookupId(id);
    if (key === null) return false;
    if (token !== undefined && typeof token !== 'string') throw new InvalidArgumentError('token', `must be a string (got ${shownValue(token)})`);
    return (await this.runScript(this.scripts.remove(key, token ?? '', this.options.requireLeaseToken))) === 1;
  }

  /** Dyno's atomicRemove: in atomic mode remove is already one script. */
  atomicRemove(id: string): Promise<boolean> {
    return this.remove(id);
  }

  protected localPredicateSets(): string[] {
    return [this.keys.queue(this.localShard), this.keys.ready(this.localShard)];
  }

  async size(): Promise<number> {
    const sizes = await this.shardSizes();
    return Object.values(sizes).reduce((sum, s) => sum + s.size, 0);
  }

  async shardSizes(): Promise<Record<string, ShardSize>> {
    this.checkOpen();
    const out: Record<string, ShardSize> = {};
    for (const shard of this.allShards) {
      const queued = await this.nonQuorum.zcard(this.keys.queue(shard));
      const ready = await this.nonQuorum.zcard(this.keys.ready(shard));
      out[shard] = { size: queued + ready, uacked: await this.nonQuorum.zcard(this.keys.unack(shard)) };
    }
    return out;
  }

  async clear(): Promise<void> {
    this.checkOpen();
    const sets = this.allShards.flatMap((s) => [this.keys.queue(s), this.keys.ready(s), this.keys.unack(s)]);
    await this.quorum.del([...sets, this.keys.message, this.keys.meta, this.keys.leases, this.keys.counters]);
  }

  /** Re-queues up to reaperBatch expired leases, in scripts of at most REQUEUE_SCRIPT_COUNT. */
  async processUnacks(): Promise<number> {
    this.checkOpen();
    let total = 0;
    for (let left = this.options.reaperBatch; left > 0; ) {
      const n = Math.min(left, REQUEUE_SCRIPT_COUNT);
      const moved = Number((await this.runScript(this.scripts.requeueExpired(n))) ?? 0);
      total += moved;
      left -= n;
      if (moved < n || this.isClosed) break;
    }
    return total;
  }

  /** In atomic mode processUnacks is already one script. */
  atomicProcessUnacks(): Promise<number> {
    return this.processUnacks();
  }

  /**
   * Walks the message hash and every shard's sets a page at a time (one bounded script call per
   * page of STALE_PAGE entries) and returns up to FIND_STALE_LIMIT stale ids, each stale when its
   * page was read.
   */
  async findStaleMessages(): Promise<string[]> {
    this.checkOpen();
    const stale = new Set<string>();
    for (let which = 0; which <= this.scripts.staleWalkSets && stale.size < FIND_STALE_LIMIT; which++) {
      let cursor = '0';
      do {
        const reply = ((await this.runScript(this.scripts.findStale(which, cursor, STALE_PAGE))) as string[] | null) ?? [];
        cursor = String(reply[0] ?? '0');
        for (const id of reply.slice(1)) if (stale.size < FIND_STALE_LIMIT) stale.add(String(id));
      } while (cursor !== '0' && stale.size < FIND_STALE_LIMIT);
    }
    return [...stale];
  }

  /**
   * The reaper's pass: re-queue expired leases, then promote every due message of this shard to READY
   * in bounded steps (PROMOTE_BATCH per script call), so that a backlog that fell due at once is
   * ordered by priority within one reaper period even when nobody pops.
   */
  protected async reap(): Promise<number> {
    const requeued = await this.processUnacks();
    if (this.options.promoteInReaper) await this.promoteDue();
    return requeued;
  }

  /** Promotes due messages of this shard, one bounded script call per PROMOTE_BATCH, until none is left. */
  async promoteDue(): Promise<number> {
    this.checkOpen();
    let total = 0;
    for (;;) {
      const moved = Number(await this.runScript(this.scripts.promote()));
      total += moved;
      if (moved < PROMOTE_BATCH || this.isClosed) return total;
    }
  }
}

/** Flat [id, payload, token, deadline]* replies to messages. */
function leasedMessages(reply: ScriptReply): PoppedMessage[] {
  const flat = (reply as ScriptReply[] | null) ?? [];
  const out: PoppedMessage[] = [];
  for (let i = 0; i + 3 < flat.length; i += 4) {
    const m = parseStoredMessage(flat[i + 1] as string);
    if (m) out.push({ ...m, token: String(flat[i + 2]), leaseDeadline: Number(flat[i + 3]) });
  }
  return out;
}
