import type { ModelLeased, ModelMessage, QueueModel } from './queue-model.js';

interface Entry {
  /** Push order, for (priority, push order) ranking. */
  seq: number;
  /** The priority the message was pushed with (its rank; a payload written later does not change it). */
  priority: number;
  state: 'queued' | 'leased';
  /** queued: when it becomes due; leased: lease deadline. */
  at: number;
  /** Queued and already in the ready set (pushed due, handed back, or promoted). */
  ready: boolean;
  /** Its rank is stored (lost only by damage: a delayed entry without one is dropped at promotion, a lease without one when it ends). */
  ranked: boolean;
  token?: string;
}

/**
 * Atomic mode: due messages leave by (priority, push order); a push is an upsert that ends any
 * lease; leases carry tokens, which ack, extend and release check; re-queue keeps the rank. As the
 * queue does, every pop call (pop, popWithMsgId, the pop of ackAndPop) draws one token, shared by
 * the messages it leases; here the draws are a counter (the model check gives the queue the same
 * counter as randomId).
 *
 * Payloads are kept apart from the queue entries, as the store keeps them: a payload may be lost
 * (an entry without one is stale: a pop drops it, findStaleMessages names it) or stray (a payload
 * no entry refers to); so may a rank. A queued message is either delayed or ready; a delayed one
 * becomes ready (is promoted) by a pop, a peek or promoteDue once it has been due for `settleMs`.
 */
export class AtomicModel implements QueueModel {
  now = 0;
  private readonly entries = new Map<string, Entry>();
  private readonly payloads = new Map<string, ModelMessage>();
  private seq = 0;
  private tokens = 0;

  constructor(
    private readonly unackTimeout: number,
    private readonly settleMs = 0,
  ) {}

  private upsert(m: ModelMessage): void {
    this.payloads.set(m.id, m);
    const ready = m.timeout <= 0 && this.settleMs === 0;
    this.entries.set(m.id, { seq: ++this.seq, priority: m.priority, state: 'queued', at: this.now + m.timeout, ready, ranked: true });
  }

  push(messages: readonly ModelMessage[]): string[] {
    for (const m of messages) this.upsert(m);
    return messages.map((m) => m.id);
  }

  /** Delayed entries due for the settle time become ready (one without a rank is dropped, its payload left); how many left the delayed set. */
  private promote(): number {
    let moved = 0;
    for (const [id, e] of [...this.entries]) {
      if (e.state === 'queued' && !e.ready && e.at <= this.now - this.settleMs) {
        if (e.ranked) e.ready = true;
        else this.entries.delete(id);
        moved++;
      }
    }
    return moved;
  }

  /** The ready entries in pop order. */
  private readyInOrder(): [string, Entry][] {
    return [...this.entries]
      .filter(([, e]) => e.state === 'queued' && e.ready)
      .sort(([, a], [, b]) => a.priority - b.priority || a.seq - b.seq);
  }

  pop(count: number, afterPrefetch?: () => void): ModelLeased[] {
    afterPrefetch?.();
    const token = String(++this.tokens);
    this.promote();
    const out: ModelLeased[] = [];
    for (const [id, e] of this.readyInOrder()) {
      if (out.length === count) break;
      const leased = this.lease(id, e, token);
      if (leased) out.push(leased);
    }
    return out;
  }

  bulkPop(count: number, afterPrefetch?: () => void): ModelLeased[] {
    return this.pop(count, afterPrefetch);
  }

  /** Leases a queued entry; one without a payload is dropped instead (null). */
  private lease(id: string, e: Entry, token: string): ModelLeased | null {
    const m = this.payloads.get(id);
    if (!m) {
      this.entries.delete(id);
      return null;
    }
    e.state = 'leased';
    e.ready = false;
    e.at = this.now + this.unackTimeout;
    e.token = token;
    return { id, payload: m.payload, token, deadline: e.at };
  }

  popWithMsgId(id: string): ModelLeased | null {
    const token = String(++this.tokens);
    const e = this.entries.get(id);
    if (!e || e.state !== 'queued') return null;
    return this.lease(id, e, token);
  }

  private holds(e: Entry | undefined, token?: string): e is Entry {
    return e !== undefined && e.state === 'leased' && (token === undefined || token === e.token);
  }

  ack(id: string, token?: string): boolean {
    if (!this.holds(this.entries.get(id), token)) return false;
    this.forget(id);
    return true;
  }

  private forget(id: string): void {
    this.entries.delete(id);
    this.payloads.delete(id);
  }

  /** A lease ends without an ack: back to ready with its rank, or dropped when its payload or rank is gone. */
  private requeue(id: string, e: Entry): boolean {
    e.token = undefined;
    if (!this.payloads.has(id) || !e.ranked) {
      this.forget(id);
      return false;
    }
    e.state = 'queued';
    e.ready = true;
    return true;
  }

  release(id: string, token?: string): boolean {
    const e = this.entries.get(id);
    return this.holds(e, token) && this.requeue(id, e);
  }

  setUnackTimeout(id: string, timeoutMs: number, token?: string): boolean {
    const e = this.entries.get(id);
    if (!this.holds(e, token)) return false;
    e.at = this.now + timeoutMs;
    return true;
  }

  setTimeout(id: string, timeoutMs: number): boolean {
    const e = this.entries.get(id);
    if (!e || e.state !== 'queued') return false;
    e.at = this.now + timeoutMs;
    e.ready = false;
    return true;
  }

  remove(id: string): boolean {
    const had = this.entries.has(id);
    this.forget(id);
    return had;
  }

  atomicRemove(id: string): boolean {
    return this.remove(id);
  }

  ensure(message: ModelMessage): boolean {
    if (this.entries.has(message.id)) return false;
    this.upsert(message);
    return true;
  }

  processUnacks(): number {
    let moved = 0;
    for (const [id, e] of [...this.entries]) {
      if (e.state === 'leased' && e.at <= this.now && this.requeue(id, e)) moved++;
    }
    return moved;
  }

  atomicProcessUnacks(): number {
    return this.processUnacks();
  }

  promoteDue(): number {
    return this.promote();
  }

  get(id: string): ModelMessage | null {
    return this.payloads.get(id) ?? null;
  }

  unackTime(id: string): number | null {
    const e = this.entries.get(id);
    return e?.state === 'leased' ? e.at : null;
  }

  peek(count: number): string[] {
    this.promote();
    return this.readyInOrder()
      .slice(0, count)
      .map(([id]) => id)
      .filter((id) => this.payloads.has(id));
  }

  findStale(): string[] {
    const lost = [...this.entries.keys()].filter((id) => !this.payloads.has(id));
    const stray = [...this.payloads.keys()].filter((id) => !this.entries.has(id));
    return [...lost, ...stray];
  }

  messages(): ModelMessage[] {
    return [...this.payloads.values()];
  }

  queuedIds(): string[] {
    return [...this.entries].filter(([, e]) => e.state === 'queued').map(([id]) => id);
  }

  /** Ids holding a lease token (the queue's lease hash). */
  leasedIds(): string[] {
    return [...this.entries].filter(([, e]) => e.state === 'leased').map(([id]) => id);
  }

  /** Ids holding a rank (the queue's meta hash). */
  rankedIds(): string[] {
    return [...this.entries].filter(([, e]) => e.ranked).map(([id]) => id);
  }

  losePayload(id: string): void {
    this.payloads.delete(id);
  }

  /** The store lost the rank of `id`: only its META entry goes. */
  loseRank(id: string): void {
    const e = this.entries.get(id);
    if (e) e.ranked = false;
  }

  strayPayload(message: ModelMessage): void {
    this.payloads.set(message.id, message);
  }

  size(): number {
    return this.queuedIds().length;
  }

  unacked(): number {
    return this.entries.size - this.size();
  }
}
