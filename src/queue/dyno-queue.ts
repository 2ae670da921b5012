import type { Message, MessageInput, PoppedMessage } from './message.js';
import type { PoppedBatch } from './popped-batch.js';

export type QueueMode = 'atomic' | 'legacy';

export interface PopOptions {
  /** Long-poll up to this many ms for `count` messages (default 0: one attempt). */
  readonly wait?: number;
  /** Stops waiting; messages already leased are still returned, never dropped. */
  readonly signal?: AbortSignal;
}

export interface ConsumeOptions extends PopOptions {
  /** Messages per pop (default 1). */
  readonly batch?: number;
  /**
   * Called with each store error the loop outlives (a dropped connection, a failover, a timeout)
   * and the ms it waits before popping again; the loop goes on. Errors a retry cannot heal (the
   * queue's own typed errors: closed queue, bad argument; not a full Redis, which heals) end the loop
   * instead, thrown from it.
   */
  readonly onError?: (error: unknown, retryInMs: number) => void;
  /**
   * Called with the ids a pop of the loop leased and did not yield because their lease may have run
   * out before its reply came back (a reply held up a whole lease: raise `unackTimeout` if it is
   * often); the reaper re-queues them. The loop goes on.
   */
  readonly onLeasesKeptBack?: (ids: readonly string[]) => void;
}

export interface ShardSize {
  /** Queued (delayed or due). */
  readonly size: number;
  /** Popped and not acked. */
  readonly uacked: number;
}

export interface AckAndPop {
  readonly acked: boolean;
  readonly messages: PoppedMessage[];
}

export interface AckManyAndPop {
  /** Whether each item was acked, in order. */
  readonly acked: boolean[];
  readonly messages: PoppedMessage[];
}

/** What `ackMany` takes: a popped message, or an id with its lease token. */
export interface AckItem {
  readonly id: string;
  readonly token?: string | undefined;
}

/** Dyno-queues' DynoQueue API, asynchronous. */
export interface DynoQueue {
  readonly name: string;
  readonly mode: QueueMode;
  push(messages: readonly MessageInput[]): Promise<string[]>;
  /**
   * Leases up to `count` due messages, long-polling up to `options.wait`. A store error after some
   * were leased returns them with the error as `error` on the result (PoppedBatch); before any
   * was leased it is thrown.
   */
  pop(count: number, options?: PopOptions): Promise<PoppedBatch>;
  bulkPop(count: number, options?: PopOptions): Promise<PoppedBatch>;
  popWithMsgId(id: string): Promise<PoppedMessage | null>;
  peek(count: number): Promise<Message[]>;
  /** With a token (atomic mode), acks only while that lease is current. Works after close(). */
  ack(id: string, token?: string): Promise<boolean>;
  /** Acks each item as ack would; whether each was acked, in order. Works after close(). */
  ackMany(items: readonly AckItem[]): Promise<boolean[]>;
  /**
   * Hands a lease back, visible again now (atomic: rank kept, token-checked, one script; legacy:
   * several steps). True when released. Works after close().
   */
  release(id: string, token?: string): Promise<boolean>;
  /** The lease deadline of a popped, un-acked message, or null. */
  getUnackTime(id: string): Promise<number | null>;
  /** Acks one message and pops up to `count` more: one script call in atomic mode, two steps in legacy. */
  ackAndPop(id: string, token: string | undefined, count: number): Promise<AckAndPop>;
  /**
   * Acks each item (as ackMany) and pops up to `count` more: a consumer loop with one call per
   * batch. One script call in atomic mode (for up to 500 acks), two steps in legacy.
   */
  ackManyAndPop(items: readonly AckItem[], count: number): Promise<AckManyAndPop>;
  setUnackTimeout(id: string, timeoutMs: number, token?: string): Promise<boolean>;
  setTimeout(id: string, timeoutMs: number): Promise<boolean>;
  /**
   * Removes a message wherever it is. Atomic, given a token: a leased message only under that
   * lease (false for a stale token); with requireLeaseToken, a leased message only with its token.
   */
  remove(id: string, token?: string): Promise<boolean>;
  /** Dyno's atomicRemove: remove as one script (atomic mode: the same as remove). */
  atomicRemove(id: string): Promise<boolean>;
  ensure(message: MessageInput): Promise<boolean>;
  containsPredicate(luaPattern: string, localShardOnly?: boolean): Promise<boolean>;
  getMsgWithPredicate(luaPattern: string, localShardOnly?: boolean): Promise<Message | null>;
  popMsgWithPredicate(luaPattern: string, localShardOnly?: boolean): Promise<PoppedMessage | null>;
  get(id: string): Promise<Message | null>;
  localGet(id: string): Promise<Message | null>;
  /** Every stored message (Dyno's getAllMessages), read a page at a time. */
  getAllMessages(): Promise<Message[]>;
  size(): Promise<number>;
  shardSizes(): Promise<Record<string, ShardSize>>;
  clear(): Promise<void>;
  /**
   * Re-queues expired leases of this instance's shard, oldest lease deadline first and at most a
   * batch per call (atomic: `reaperBatch`; legacy: Dyno's 1,000); returns how many went back.
   */
  processUnacks(): Promise<number>;
  atomicProcessUnacks(): Promise<number>;
  /** Ids whose queue entries and payload disagree. */
  findStaleMessages(): Promise<string[]>;
  /** Pops and yields one by one until closed or aborted; store errors go to `onError` and the loop pops again after a capped back-off. */
  consume(options?: ConsumeOptions): AsyncIterableIterator<PoppedMessage>;
  close(): Promise<void>;
}
