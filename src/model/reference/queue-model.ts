/** One message as the model sees it (the fields a reply exposes). */
export interface ModelMessage {
  readonly id: string;
  readonly payload: string;
  readonly timeout: number;
  readonly priority: number;
}

export interface ModelLeased {
  readonly id: string;
  readonly payload: string;
  /** Atomic mode only. */
  readonly token?: string;
  /** When the lease ends (the un-ack score the pop wrote). */
  readonly deadline: number;
}

/**
 * A sequential reference model of the queue API on one shard over virtual time. It shares no code
 * with src/queue: it states what the replies must be.
 */
export interface QueueModel {
  now: number;
  push(messages: readonly ModelMessage[]): string[];
  /**
   * `afterPrefetch`: what another client does between the legacy prefetch read and the claim
   * (atomic pops have no such window: it runs first).
   */
  pop(count: number, afterPrefetch?: () => void): ModelLeased[];
  /** Legacy: Dyno's bulkPop (claims the prefetched ids in one script); atomic: the same as pop. */
  bulkPop(count: number, afterPrefetch?: () => void): ModelLeased[];
  /** Leases this id if it is queued, due or not; null otherwise. */
  popWithMsgId(id: string): ModelLeased | null;
  ack(id: string, token?: string): boolean;
  /** Hands a lease back, visible again now. */
  release(id: string, token?: string): boolean;
  setUnackTimeout(id: string, timeoutMs: number, token?: string): boolean;
  setTimeout(id: string, timeoutMs: number): boolean;
  remove(id: string): boolean;
  /** Dyno's atomicRemove: every shard's sets and the payload in one step. */
  atomicRemove(id: string): boolean;
  ensure(message: ModelMessage): boolean;
  processUnacks(): number;
  /** Dyno's atomicProcessUnacks (legacy); atomic: the same as processUnacks. */
  atomicProcessUnacks(): number;
  /** Atomic only: promotes every due message to the ready set; how many moved. */
  promoteDue?(): number;
  get(id: string): ModelMessage | null;
  /** The lease deadline of a leased id, or null. */
  unackTime(id: string): number | null;
  peek(count: number): string[];
  /** The ids findStaleMessages reports, in any order. */
  findStale(): string[];
  /** Every stored payload (getAllMessages), in any order. */
  messages(): ModelMessage[];
  /** Ids a `localShardOnly` predicate may match: those queued on the local shard. */
  queuedIds(): string[];
  /** The store lost the payload of `id` (a partial write): only its stored message goes. */
  losePayload(id: string): void;
  /** The store holds `message` as the payload of its id, whatever else it holds for it. */
  strayPayload(message: ModelMessage): void;
  size(): number;
  unacked(): number;
}
