import type { ModelLeased, ModelMessage, QueueModel } from './queue-model.js';

const PROCESS_UNACKS_BATCH = 1_000;

function byScore(a: [string, number], b: [string, number]): number {
  return a[1] - b[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0);
}

/**
 * Dyno-queues v1 on one shard, as the seeds describe it: score = now + timeout + priority/100,
 * a client-side prefetch buffer that outlives a pop, ZADD NX into un-ack before ZREM from the
 * queue (so a stale prefetched id leaves an un-ack entry behind), re-queue with the un-ack score.
 */
export class LegacyModel implements QueueModel {
  now = 0;
  private readonly queue = new Map<string, number>();
  private readonly unack = new Map<string, number>();
  private readonly store = new Map<string, ModelMessage>();
  private readonly prefetched: string[] = [];

  constructor(private readonly unackTimeout: number) {}

  push(messages: readonly ModelMessage[]): string[] {
    for (const m of messages) {
      this.store.set(m.id, m);
      this.queue.set(m.id, this.now + m.timeout + m.priority / 100);
    }
    return messages.map((m) => m.id);
  }

  private dueIds(limit: number): string[] {
    return [...this.queue]
      .filter(([, s]) => s >= 0 && s <= this.now + 1)
      .sort(byScore)
      .slice(0, limit)
      .map(([id]) => id);
  }

  pop(count: number): ModelLeased[] {
    const want = count - this.prefetched.length;
    if (want > 0) this.prefetched.push(...this.dueIds(want));
    const popped: ModelLeased[] = [];
    while (popped.length < count) {
      const id = this.prefetched.shift();
      if (id === undefined) break;
      if (this.unack.has(id)) continue;
      this.unack.set(id, this.now + this.unackTimeout);
      if (!this.queue.delete(id)) continue;
      const m = this.store.get(id);
      if (!m) continue;
      popped.push({ id, payload: m.payload });
    }
    return popped;
  }

  /** Dyno's popWithMsgId: ZRANK in the queue (due or not), HGET, ZADD NX into un-ack, ZREM. */
  popWithMsgId(id: string): ModelLeased | null {
    const m = this.store.get(id);
    if (!this.queue.has(id) || !m || this.unack.has(id)) return null;
    this.unack.set(id, this.now + this.unackTimeout);
    this.queue.delete(id);
    return { id, payload: m.payload };
  }

  ack(id: string): boolean {
    if (!this.unack.delete(id)) return false;
    this.store.delete(id);
    return true;
  }

  setUnackTimeout(id: string, timeoutMs: number): boolean {
    if (!this.unack.has(id)) return false;
    this.unack.set(id, this.now + timeoutMs);
    return true;
  }

  setTimeout(id: string, timeoutMs: number): boolean {
    const m = this.store.get(id);
    if (!m || !this.queue.has(id)) return false;
    // Java's int division: priority / 100 is 0 for every valid priority.
    this.queue.set(id, this.now + timeoutMs + Math.trunc(m.priority / 100));
    this.store.set(id, { ...m, timeout: timeoutMs });
    return true;
  }

  remove(id: string): boolean {
    this.unack.delete(id);
    if (!this.queue.delete(id)) return false;
    this.store.delete(id);
    return true;
  }

  ensure(message: ModelMessage): boolean {
    if (this.queue.has(message.id) || this.unack.has(message.id)) return false;
    this.push([message]);
    return true;
  }

  processUnacks(): number {
    const expired = [...this.unack]
      .filter(([, s]) => s >= 0 && s <= this.now)
      .sort(byScore)
      .slice(0, PROCESS_UNACKS_BATCH);
    let moved = 0;
    for (const [id, score] of expired) {
      if (!this.store.has(id)) {
        this.unack.delete(id);
        continue;
      }
      const added = !this.queue.has(id);
      this.queue.set(id, score);
      this.unack.delete(id);
      if (added) moved++;
    }
    return moved;
  }

  get(id: string): ModelMessage | null {
    return this.store.get(id) ?? null;
  }

  peek(count: number): string[] {
    return this.dueIds(count).filter((id) => this.store.has(id));
  }

  size(): number {
    return this.queue.size;
  }

  unacked(): number {
    return this.unack.size;
  }
}
