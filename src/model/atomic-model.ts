import type { ModelLeased, ModelMessage, QueueModel } from './queue-model.js';

interface Entry {
  message: ModelMessage;
  /** Push order, for (priority, push order) ranking. */
  seq: number;
  state: 'queued' | 'leased';
  /** queued: when it becomes due; leased: lease deadline. */
  at: number;
  token?: string;
}

/**
 * Atomic mode: due messages leave by (priority, push order); a push is an upsert that ends any
 * lease; leases carry tokens, which ack and extend check; re-queue keeps the rank. As the queue does,
 * every pop call (pop, popWithMsgId, the pop of ackAndPop) draws one token, shared by the messages it
 * leases; here the draws are a counter (the model check gives the queue the same counter as randomId).
 */
export class AtomicModel implements QueueModel {
  now = 0;
  private readonly entries = new Map<string, Entry>();
  private seq = 0;
  private tokens = 0;

  constructor(private readonly unackTimeout: number) {}

  private upsert(m: ModelMessage): void {
    this.entries.set(m.id, { message: m, seq: ++this.seq, state: 'queued', at: this.now + m.timeout });
  }

  push(messages: readonly ModelMessage[]): string[] {
    for (const m of messages) this.upsert(m);
    return messages.map((m) => m.id);
  }

  private due(): [string, Entry][] {
    return [...this.entries]
      .filter(([, e]) => e.state === 'queued' && e.at <= this.now)
      .sort(([, a], [, b]) => a.message.priority - b.message.priority || a.seq - b.seq);
  }

  pop(count: number): ModelLeased[] {
    const token = String(++this.tokens);
    return this.due()
      .slice(0, count)
      .map(([id, e]) => this.lease(id, e, token));
  }

  private lease(id: string, e: Entry, token: string): ModelLeased {
    e.state = 'leased';
    e.at = this.now + this.unackTimeout;
    e.token = token;
    return { id, payload: e.message.payload, token: e.token };
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
    this.entries.delete(id);
    return true;
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
    return true;
  }

  remove(id: string): boolean {
    return this.entries.delete(id);
  }

  ensure(message: ModelMessage): boolean {
    if (this.entries.has(message.id)) return false;
    this.upsert(message);
    return true;
  }

  processUnacks(): number {
    let moved = 0;
    for (const e of this.entries.values()) {
      if (e.state === 'leased' && e.at <= this.now) {
        e.state = 'queued';
        e.token = undefined;
        moved++;
      }
    }
    return moved;
  }

  get(id: string): ModelMessage | null {
    return this.entries.get(id)?.message ?? null;
  }

  peek(count: number): string[] {
    return this.due()
      .slice(0, count)
      .map(([id]) => id);
  }

  size(): number {
    return [...this.entries.values()].filter((e) => e.state === 'queued').length;
  }

  unacked(): number {
    return this.entries.size - this.size();
  }
}
