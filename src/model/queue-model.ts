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
}

/**
 * A sequential reference model of the queue API on one shard over virtual time. It shares no code
 * with src/queue: it states what the replies must be.
 */
export interface QueueModel {
  now: number;
  push(messages: readonly ModelMessage[]): string[];
  pop(count: number): ModelLeased[];
  /** Leases this id if it is queued, due or not; null otherwise. */
  popWithMsgId(id: string): ModelLeased | null;
  ack(id: string, token?: string): boolean;
  setUnackTimeout(id: string, timeoutMs: number, token?: string): boolean;
  setTimeout(id: string, timeoutMs: number): boolean;
  remove(id: string): boolean;
  ensure(message: ModelMessage): boolean;
  processUnacks(): number;
  get(id: string): ModelMessage | null;
  peek(count: number): string[];
  size(): number;
  unacked(): number;
}
