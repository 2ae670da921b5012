import type { ScriptReply } from '../redis/script.js';
import { StoreFullError } from '../store/errors.js';
import type { Store } from '../store/store.js';
import type { AckAndPop, AckItem, AckManyAndPop, ConsumeOptions, DynoQueue, PopOptions, QueueMode, ShardSize } from './dyno-queue.js';
import { DynoqError, InvalidArgumentError, InvalidMessageError, QueueClosedError } from './errors.js';
import { QueueKeys } from './keys.js';
import type { Message, MessageInput, PoppedMessage } from './message.js';
import { ID_PATTERN, MAX_ID_LENGTH, validateDelay } from './message.js';
import { compileLuaPattern, luaPatternMatches } from './lua-pattern.js';
import { QueueScripts, type ScriptCall } from './scripts/queue-scripts.js';
import { parseStoredMessage } from './stored-message.js';
import { keepLeased, withoutKeptBack, type PoppedBatch } from './popped-batch.js';
import { checkOptionKeys } from './option-keys.js';
import { shownValue } from './shown-value.js';
import { DYNOMITE_SETTLE_MS, type QueueOptions } from './options.js';
import type { ShardingStrategy } from './sharding.js';
import { shardingStrategy } from './sharding.js';
import type { TimerHandle } from './time.js';
import { RECORDING_HOOKS, observedSharding, type RecordingHooks } from './recording-hooks.js';

export const MAX_POP_COUNT = 10_000;
const POP_OPTIONS: readonly (keyof PopOptions)[] = ['wait', 'signal'];
const CONSUME_OPTIONS: readonly (keyof ConsumeOptions)[] = ['batch', 'wait', 'signal', 'onError', 'onLeasesKeptBack'];
/** consume()'s pause after a store error: doubling from the first to the cap while errors go on. */
export const CONSUME_RETRY_FIRST_MS = 100;
export const CONSUME_RETRY_MAX_MS = 5_000;
/** Message-hash entries asked for per scan page (HSCAN COUNT): the bound on one page's work in Redis. */
const SCAN_PAGE = 16;

/**
 * What both modes share: options, key names, argument checks, the background reaper, long-poll,
 * consume() and close(). The modes supply the store operations.
 */
export abstract class BaseQueue implements DynoQueue {
  abstract readonly mode: QueueMode;
  readonly name: string;
  protected readonly keys: QueueKeys;
  protected readonly quorum: Store;
  protected readonly nonQuorum: Store;
  protected readonly allShards: readonly string[];
  protected readonly localShard: string;
  protected readonly sharding: ShardingStrategy;
  /** For recordHistory (dynoq/testing): lease length, reaper period, and the shard picked per push. */
  readonly [RECORDING_HOOKS]: RecordingHooks;
  /** Every script call, keys and args built in one place. */
  protected readonly scripts: QueueScripts;
  /** The most one popOnce leases (one bounded script); a larger pop takes several attempts. */
  protected readonly popScriptCount: number = Number.POSITIVE_INFINITY;
  private closed = false;
  private reaperHandle: TimerHandle | undefined;
  private reaping: Promise<unknown> | undefined;
  private readonly sleepers = new Set<() => void>();

  constructor(protected readonly options: QueueOptions) {
    this.name = options.name;
    this.keys = new QueueKeys(options.prefix, options.name, options.hashTag);
    this.quorum = options.quorum;
    this.nonQuorum = options.nonQuorum ?? options.quorum;
    this.allShards = options.shards.allShards;
    this.localShard = options.shards.currentShard;
    this[RECORDING_HOOKS] = {
      unackTimeoutMs: options.unackTimeout,
      reaperIntervalMs: options.unackInterval,
      localShard: this.localShard,
      shardPicked: new Set(),
    };
    this.sharding = observedSharding(shardingStrategy(options.sharding), this[RECORDING_HOOKS].shardPicked);
    this.scripts = new QueueScripts(
      this.keys,
      this.allShards,
      this.localShard,
      () => (options.serverTime ? ['0', '1'] : [String(options.clock.now()), '0']),
      options.settleMs ?? (this.quorum.replication === 'dynomite' && (this.quorum.racks ?? 2) > 1 ? DYNOMITE_SETTLE_MS : 0),
    );
    if (options.unackInterval > 0) this.scheduleReaper();
  }

  abstract push(messages: readonly MessageInput[]): Promise<string[]>;
  protected abstract popOnce(count: number): Promise<PoppedMessage[]>;
  abstract popWithMsgId(id: string): Promise<PoppedMessage | null>;
  abstract peek(count: number): Promise<Message[]>;
  abstract ack(id: string, token?: string): Promise<boolean>;
  abstract release(id: string, token?: string): Promise<boolean>;
  abstract atomicRemove(id: string): Promise<boolean>;
  abstract setUnackTimeout(id: string, timeoutMs: number, token?: string): Promise<boolean>;
  abstract setTimeout(id: string, timeoutMs: number): Promise<boolean>;
  abstract remove(id: string, token?: string): Promise<boolean>;
  abstract ensure(message: MessageInput): Promise<boolean>;
  /** The local shard's sorted sets a `localShardOnly` predicate restricts matches to. */
  protected abstract localPredicateSets(): string[];
  abstract size(): Promise<number>;
  abstract shardSizes(): Promise<Record<string, ShardSize>>;
  abstract clear(): Promise<void>;
  abstract processUnacks(): Promise<number>;
  abstract atomicProcessUnacks(): Promise<number>;
  abstract findStaleMessages(): Promise<string[]>;
  /** What the background reaper runs each period. */
  protected abstract reap(): Promise<number>;

  /** Runs a script call through the quorum connection. */
  protected runScript(call: ScriptCall): Promise<ScriptReply> {
    return this.quorum.runScript(call.script, call.keys, call.args);
  }

  /**
   * Leases up to `count` due messages, long-polling up to `options.wait` ms. A store error before
   * anything was leased is thrown; one after some were leased returns those with the error as
   * `error` on the result (see PoppedBatch), never leaving them leased to nobody.
   */
  async pop(count: number, options: PopOptions = {}): Promise<PoppedBatch> {
    this.checkOpen();
    this.checkPopOptions(options);
    if (count === 0) return [];
    this.checkCount(count);
    const wait = this.checkWait(options.wait ?? 0);
    return this.longPoll(count, wait, options.signal, (n) => this.popOnce(n));
  }

  async bulkPop(count: number, options: PopOptions = {}): Promise<PoppedBatch> {
    return this.pop(count, options);
  }

  /** Two steps here; the atomic mode does both in one script. */
  async ackAndPop(id: string, token: string | undefined, count: number): Promise<AckAndPop> {
    const acked = await this.ack(id, token);
    return { acked, messages: await this.pop(count) };
  }

  async get(id: string): Promise<Message | null> {
    this.checkOpen();
    const key = lookupId(id);
    return key === null ? null : parseStoredMessage(await this.quorum.hget(this.keys.message, key));
  }

  async localGet(id: string): Promise<Message | null> {
    this.checkOpen();
    const key = lookupId(id);
    return key === null ? null : parseStoredMessage(await this.nonQuorum.hget(this.keys.message, key));
  }

  /** The lease deadline of a popped, un-acked message (on the clock that set it), or null. */
  async getUnackTime(id: string): Promise<number | null> {
    this.checkOpen();
    const key = lookupId(id);
    if (key === null) return null;
    for (const shard of this.allShards) {
      const deadline = await this.quorum.zscore(this.keys.unack(shard), key);
      if (deadline !== null) return deadline;
    }
    return null;
  }

  /**
   * Acks several messages (each as `ack` would: with its token, if it has one); returns, in order,
   * whether each was acked. Works after close(), as ack does.
   */
  async ackMany(items: readonly AckItem[]): Promise<boolean[]> {
    this.checkAckItems(items);
    const out: boolean[] = [];
    for (const item of items) out.push(await this.ack(item.id, item.token));
    return out;
  }

  /** Two steps here; the atomic mode does both in one script. Checks everything before acking anything. */
  async ackManyAndPop(items: readonly AckItem[], count: number): Promise<AckManyAndPop> {
    this.checkOpen();
    this.checkAckItems(items);
    this.checkCount(count);
    const acked = await this.ackMany(items);
    return { acked, messages: await this.pop(count) };
  }

  protected checkAckItems(items: readonly AckItem[]): void {
    if (!Array.isArray(items) || !items.every((item) => typeof item === 'object' && item !== null)) {
      throw new InvalidArgumentError('items', 'must be an array of { id, token? }');
    }
  }

  /** Every stored message (Dyno's getAllMessages), read in pages of SCAN_PAGE entries. */
  async getAllMessages(): Promise<Message[]> {
    this.checkOpen();
    const out: Message[] = [];
    await this.scanMessages([], (_id, json) => {
      const m = parseStoredMessage(json);
      if (m) out.push(m);
      return false;
    });
    return out;
  }

  /**
   * Walks the message hash a page at a time (one bounded script call per page), calling `visit`
   * with each entry until it returns true. `sets` restricts entries to ids in those sorted sets.
   * HSCAN's guarantee holds: an entry present for the whole walk is visited (perhaps twice).
   */
  protected async scanMessages(sets: readonly string[], visit: (id: string, json: string) => boolean): Promise<void> {
    let cursor = '0';
    do {
      const reply = ((await this.runScript(this.scripts.scanMessages(cursor, SCAN_PAGE, sets))) as string[] | null) ?? [];
      cursor = String(reply[0] ?? '0');
      for (let i = 1; i + 1 < reply.length; i += 2) if (visit(String(reply[i]), String(reply[i + 1]))) return;
    } while (cursor !== '0');
  }

  /**
   * The first id (in HSCAN order) whose payload matches the Lua pattern. The pattern is checked
   * first (InvalidArgumentError when malformed); matching runs here, in the client, over pages of
   * the message hash, with a step budget per payload (PatternTooComplexError past it).
   */
  private async findIdByPattern(pattern: string, localShardOnly: boolean): Promise<string | null> {
    this.checkOpen();
    const compiled = compileLuaPattern(pattern);
    let found: string | null = null;
    await this.scanMessages(localShardOnly ? this.localPredicateSets() : [], (id, json) => {
      const m = parseStoredMessage(json);
      if (m && luaPatternMatches(compiled, m.payload, id)) found = id;
      return found !== null;
    });
    return found;
  }

  async containsPredicate(pattern: string, localShardOnly = false): Promise<boolean> {
    return (await this.findIdByPattern(pattern, localShardOnly)) !== null;
  }

  async getMsgWithPredicate(pattern: string, localShardOnly = false): Promise<Message | null> {
    const id = await this.findIdByPattern(pattern, localShardOnly);
    return id === null ? null : this.get(id);
  }

  async popMsgWithPredicate(pattern: string, localShardOnly = false): Promise<PoppedMessage | null> {
    const id = await this.findIdByPattern(pattern, localShardOnly);
    return id === null ? null : this.popWithMsgId(id);
  }

  /**
   * Yields popped messages one by one, until the queue closes or the signal aborts. A store error
   * does not end it: the loop reports the error to `onError`, waits (CONSUME_RETRY_FIRST_MS,
   * doubling up to CONSUME_RETRY_MAX_MS while errors go on) and pops again, so a loop written once
   * outlives reconnects and failovers. A pop that failed after leasing some messages
   * (PoppedBatch.error) yields those first. The queue's own typed errors (closed, bad argument)
   * cannot heal and end the loop, thrown from it; a full Redis (StoreFullError) heals and is waited out. Leaving the loop early (`break`, `return`, a
   * throw in the loop body) releases the messages of the current batch not yet yielded, so no lease
   * is left held by nobody; the message the loop body was given stays with it (ack or release it).
   */
  async *consume(options: ConsumeOptions = {}): AsyncIterableIterator<PoppedMessage> {
    checkOptionKeys(options, CONSUME_OPTIONS, 'consume options');
    checkSignal(options.signal);
    if (options.onError !== undefined && typeof options.onError !== 'function') {
      throw new InvalidArgumentError('onError', `must be a function (got ${shownValue(options.onError)})`);
    }
    if (options.onLeasesKeptBack !== undefined && typeof options.onLeasesKeptBack !== 'function') {
      throw new InvalidArgumentError('onLeasesKeptBack', `must be a function (got ${shownValue(options.onLeasesKeptBack)})`);
    }
    const batch = options.batch ?? 1;
    this.checkCount(batch, 'batch');
    const wait = options.wait ?? 1_000;
    let pending: PoppedMessage[] = [];
    let failures = 0;
    try {
      while (!this.closed && !options.signal?.aborted) {
        let popped: PoppedBatch;
        try {
          popped = await this.pop(batch, { wait, signal: options.signal });
        } catch (err) {
          if (!healable(err)) throw err;
          await this.pauseAfter(err, ++failures, options);
          continue;
        }
        if (popped.keptBack) {
          try {
            options.onLeasesKeptBack?.(popped.keptBack);
          } catch {
            // a failing hook must not end the loop
          }
        }
        pending = [...popped];
        while (pending.length > 0) yield pending.shift()!;
        if (!Object.hasOwn(popped, 'error')) {
          failures = 0;
          continue;
        }
        if (!healable(popped.error)) throw popped.error;
        await this.pauseAfter(popped.error, ++failures, options);
      }
    } finally {
      await this.releaseAll(pending.splice(0));
    }
  }

  /** consume()'s answer to a store error: report it, then wait the capped back-off (woken by abort or close). */
  private async pauseAfter(err: unknown, failures: number, options: ConsumeOptions): Promise<void> {
    const pause = Math.min(CONSUME_RETRY_MAX_MS, CONSUME_RETRY_FIRST_MS * 2 ** Math.min(failures - 1, 16));
    try {
      options.onError?.(err, pause);
    } catch {
      // a failing error hook must not end the loop
    }
    await this.sleep(pause, options.signal);
  }

  /** Best-effort release of leases nobody will process; errors are swallowed (the lease then expires). */
  protected async releaseAll(messages: readonly PoppedMessage[]): Promise<void> {
    for (const m of messages) {
      try {
        await this.release(m.id, m.token);
      } catch {
        // the reaper re-queues it when its lease ends
      }
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.reaperHandle !== undefined) this.options.timers.clearTimeout(this.reaperHandle);
    this.reaperHandle = undefined;
    for (const wake of [...this.sleepers]) wake();
    await this.reaping;
  }

  get isClosed(): boolean {
    return this.closed;
  }

  /**
   * Repeats `attempt` until `count` messages are in hand, `wait` ms have passed on the injected
   * clock, the signal aborts or the queue closes. Once something is leased it waits for more only
   * until half a lease after the attempt that leased it began: a message handed over after its lease
   * ran out may already be re-queued and held by another consumer. For the same reason a message
   * whose lease may have run out before the call returns (a whole lease has passed on the injected
   * clock since the attempt that leased it began: a reply held by a pause, a request that timed out
   * after an earlier attempt leased it) is not handed over: its lease is over, and the reaper
   * re-queues it as any expired lease. The others are returned: when an attempt fails after earlier
   * ones leased some, those come back with the error attached (PoppedBatch.error); when none is left
   * the error is thrown.
   */
  protected async longPoll(
    count: number,
    wait: number,
    signal: AbortSignal | undefined,
    attempt: (remaining: number) => Promise<PoppedMessage[]>,
  ): Promise<PoppedBatch> {
    const clock = this.options.clock;
    const deadline = clock.now() + wait;
    // No earlier than the attempt's start (the last clock read plus the sleep since): its leases end after it.
    let attemptFrom = deadline - wait;
    let leaseBound = Number.POSITIVE_INFINITY;
    // Each message's lease runs at least a whole lease from the start of the attempt that leased it.
    const leasedFrom: number[] = [];
    const out: PoppedMessage[] = [];
    const unack = this.options.unackTimeout;
    const stillHeld = (now: number): PoppedBatch =>
      out.length > 0 && now - leasedFrom[0]! >= unack ? withoutKeptBack(out, leasedFrom.map((from) => now - from < unack)) : out;
    if (signal?.aborted) return out;
    for (;;) {
      let got: PoppedMessage[];
      try {
        got = await attempt(count - out.length);
        out.push(...got);
        for (let i = 0; i < got.length; i++) leasedFrom.push(attemptFrom);
      } catch (err) {
        // (read only when something is in hand: a failed attempt with nothing leased reads no clock, as before)
        return keepLeased(out.length > 0 ? stillHeld(clock.now()) : out, err);
      }
      if (got.length > 0 && out.length === got.length) leaseBound = attemptFrom + unack / 2;
      // (the clock is read as before the bound existed: a simulated clock's reads are part of its run)
      const now = clock.now();
      const left = Math.min(deadline, leaseBound) - now;
      if (out.length >= count || this.closed || signal?.aborted) return stillHeld(now);
      // one script leases at most popScriptCount: a full one means more may be due, so go on at once
      if (got.length >= this.popScriptCount && now < leaseBound) {
        attemptFrom = now;
        continue;
      }
      if (left <= 0) return stillHeld(now);
      const nap = Math.min(this.options.pollInterval, left);
      await this.sleep(nap, signal);
      attemptFrom = now + nap;
      if (this.closed || signal?.aborted) return stillHeld(attemptFrom);
    }
  }

  /** Sleeps on the injected timers; wakes early on abort or close. */
  protected sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      const timers = this.options.timers;
      const done = () => {
        timers.clearTimeout(handle);
        signal?.removeEventListener('abort', done);
        this.sleepers.delete(done);
        resolve();
      };
      const handle = timers.setTimeout(done, ms);
      signal?.addEventListener('abort', done);
      this.sleepers.add(done);
    });
  }

  private scheduleReaper(): void {
    this.reaperHandle = this.options.timers.setTimeout(() => {
      this.reaperHandle = undefined;
      // The reaper outlives store errors: report them and try again next period.
      this.reaping = this.reap()
        .catch((err: unknown) => {
          try {
            this.options.onReaperError?.(err);
          } catch {
            // a failing error callback must not stop the reaper either
          }
        })
        .finally(() => {
          this.reaping = undefined;
          if (!this.closed) this.scheduleReaper();
        });
    }, this.options.unackInterval);
  }

  protected checkOpen(): void {
    if (this.closed) throw new QueueClosedError(this.name);
  }

  protected checkCount(count: number, argument = 'count'): void {
    if (!Number.isInteger(count) || count < 1 || count > MAX_POP_COUNT) {
      throw new InvalidArgumentError(argument, `must be an integer from 1 to ${MAX_POP_COUNT} (got ${shownValue(count)})`);
    }
  }

  protected checkPopOptions(options: PopOptions): void {
    checkOptionKeys(options, POP_OPTIONS, 'pop options');
    checkSignal(options.signal);
  }

  protected checkWait(wait: number): number {
    if (typeof wait !== 'number' || !Number.isFinite(wait) || wait < 0) {
      throw new InvalidArgumentError('wait', `must be a finite number of ms ≥ 0 (got ${shownValue(wait)})`);
    }
    return wait;
  }

  protected checkTimeout(timeoutMs: number): number {
    return validateDelay(timeoutMs, 'timeout');
  }

  /** The messages argument of push: an array (its messages are checked one by one later). */
  protected checkMessages(messages: readonly MessageInput[]): readonly MessageInput[] {
    if (!Array.isArray(messages)) throw new InvalidArgumentError('messages', 'must be an array of messages');
    return messages;
  }

  protected shardSetKeys(shard: string): string[] {
    return [this.keys.queue(shard), this.keys.unack(shard)];
  }
}

/** A store error a reconnect, failover or freed memory may heal; the queue's own other typed errors never do. */
function healable(err: unknown): boolean {
  // A full Redis heals as a reconnect does (memory freed, the limit raised): the loop waits it out.
  return !(err instanceof DynoqError) || err instanceof StoreFullError;
}

/** An AbortSignal or anything shaped like one (a polyfill's); anything else is refused before any timer is set. */
function checkSignal(signal: unknown): void {
  if (signal === undefined) return;
  const s = signal as Partial<AbortSignal> | null;
  if (s === null || typeof s !== 'object' || typeof s.aborted !== 'boolean' || typeof s.addEventListener !== 'function' || typeof s.removeEventListener !== 'function') {
    throw new InvalidArgumentError('signal', `must be an AbortSignal (got ${shownValue(signal)})`);
  }
}

/**
 * The id of a lookup (get, remove, ack, ...): a string that could never have been pushed (empty,
 * too long, characters outside the id alphabet) names no message, so the lookup answers null/false
 * as Dyno does; a non-string is a programming error and throws InvalidMessageError.
 */
export function lookupId(id: unknown): string | null {
  if (typeof id !== 'string') throw new InvalidMessageError('id', 'must be a string');
  return id.length > 0 && id.length <= MAX_ID_LENGTH && ID_PATTERN.test(id) ? id : null;
}
