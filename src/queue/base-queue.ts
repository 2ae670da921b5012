import type { ScriptReply } from '../redis/script.js';
import type { Store } from '../store/store.js';
import type { AckAndPop, ConsumeOptions, DynoQueue, PopOptions, QueueMode, ShardSize } from './dyno-queue.js';
import { InvalidArgumentError, QueueClosedError } from './errors.js';
import { QueueKeys } from './keys.js';
import type { Message, MessageInput, PoppedMessage } from './message.js';
import { validateDelay, validateId } from './message.js';
import { QueueScripts, type ScriptCall } from './scripts/queue-scripts.js';
import { parseStoredMessage } from './stored-message.js';
import { DYNOMITE_SETTLE_MS, type QueueOptions } from './options.js';
import type { ShardingStrategy } from './sharding.js';
import { shardingStrategy } from './sharding.js';
import type { TimerHandle } from './time.js';

export const MAX_POP_COUNT = 10_000;

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
  /** Every script call, keys and args built in one place. */
  protected readonly scripts: QueueScripts;
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
    this.sharding = shardingStrategy(options.sharding);
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
  abstract setUnackTimeout(id: string, timeoutMs: number, token?: string): Promise<boolean>;
  abstract setTimeout(id: string, timeoutMs: number): Promise<boolean>;
  abstract remove(id: string): Promise<boolean>;
  abstract ensure(message: MessageInput): Promise<boolean>;
  abstract containsPredicate(luaPattern: string, localShardOnly?: boolean): Promise<boolean>;
  abstract getMsgWithPredicate(luaPattern: string, localShardOnly?: boolean): Promise<Message | null>;
  abstract popMsgWithPredicate(luaPattern: string, localShardOnly?: boolean): Promise<PoppedMessage | null>;
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

  async pop(count: number, options: PopOptions = {}): Promise<PoppedMessage[]> {
    this.checkOpen();
    this.checkCount(count);
    const wait = this.checkWait(options.wait ?? 0);
    return this.longPoll(count, wait, options.signal, (n) => this.popOnce(n));
  }

  async bulkPop(count: number, options: PopOptions = {}): Promise<PoppedMessage[]> {
    return this.pop(count, options);
  }

  /** Two steps here; the atomic mode does both in one script. */
  async ackAndPop(id: string, token: string | undefined, count: number): Promise<AckAndPop> {
    const acked = await this.ack(id, token);
    return { acked, messages: await this.pop(count) };
  }

  async get(id: string): Promise<Message | null> {
    this.checkOpen();
    return parseStoredMessage(await this.quorum.hget(this.keys.message, validateId(id)));
  }

  async localGet(id: string): Promise<Message | null> {
    this.checkOpen();
    return parseStoredMessage(await this.nonQuorum.hget(this.keys.message, validateId(id)));
  }

  async *consume(options: ConsumeOptions = {}): AsyncIterableIterator<PoppedMessage> {
    const batch = options.batch ?? 1;
    this.checkCount(batch);
    const wait = options.wait ?? 1_000;
    while (!this.closed && !options.signal?.aborted) {
      const messages = await this.pop(batch, { wait, signal: options.signal });
      for (const m of messages) yield m;
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
   * clock, the signal aborts or the queue closes. Leased messages are always returned.
   */
  protected async longPoll(
    count: number,
    wait: number,
    signal: AbortSignal | undefined,
    attempt: (remaining: number) => Promise<PoppedMessage[]>,
  ): Promise<PoppedMessage[]> {
    const clock = this.options.clock;
    const deadline = clock.now() + wait;
    const out: PoppedMessage[] = [];
    if (signal?.aborted) return out;
    for (;;) {
      out.push(...(await attempt(count - out.length)));
      const left = deadline - clock.now();
      if (out.length >= count || left <= 0 || this.closed || signal?.aborted) return out;
      await this.sleep(Math.min(this.options.pollInterval, left), signal);
      if (this.closed || signal?.aborted) return out;
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

  protected checkCount(count: number): void {
    if (!Number.isInteger(count) || count < 1 || count > MAX_POP_COUNT) {
      throw new InvalidArgumentError('count', `must be an integer from 1 to ${MAX_POP_COUNT} (got ${count})`);
    }
  }

  protected checkWait(wait: number): number {
    if (typeof wait !== 'number' || !Number.isFinite(wait) || wait < 0) {
      throw new InvalidArgumentError('wait', `must be a finite number of ms ≥ 0 (got ${wait})`);
    }
    return wait;
  }

  protected checkTimeout(timeoutMs: number): number {
    return validateDelay(timeoutMs, 'timeout');
  }

  protected checkPattern(pattern: string): string {
    if (typeof pattern !== 'string' || pattern.length === 0 || pattern.length > 1024) {
      throw new InvalidArgumentError('pattern', 'must be a Lua pattern of 1 to 1024 characters');
    }
    return pattern;
  }

  protected shardSetKeys(shard: string): string[] {
    return [this.keys.queue(shard), this.keys.unack(shard)];
  }
}
