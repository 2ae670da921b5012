import type { ModelLeased, ModelMessage, QueueModel } from './queue-model.js';

const PROCESS_UNACKS_BATCH = 1_000;
const FIND_STALE_BATCH = 10;

function byScore(a: [string, number], b: [string, number]): number {
  return a[1] - b[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0);
}

/**
 * Dyno-queues v1 on one shard, as the seeds describe it: score = now + timeout + priority/100,
 * a client-side prefetch buffer that outlives a pop, ZADD NX into un-ack before ZREM from the
 * queue (so a stale prefetched id leaves an un-ack entry behind), re-queue with the un-ack score.
 * The queue, the un-ack set and the payloads are kept apart, as the store keeps them.
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

  /** Dyno's prefetchIds: tops the client-side buffer up to `count` ids due by now + 1 (a read; another client may act right after it). */
  private prefetch(count: number, afterPrefetch?: () => void): void {
    const want = count - this.prefetched.length;
    if (want <= 0) return;
    this.prefetched.push(...this.dueIds(want));
    afterPrefetch?.();
  }

  pop(count: number, afterPrefetch?: () => void): ModelLeased[] {
    this.prefetch(count, afterPrefetch);
    const deadline = this.now + this.unackTimeout;
    const popped: ModelLeased[] = [];
    while (popped.length < count) {
      const id = this.prefetched.shift();
      if (id === undefined) break;
      if (this.unack.has(id)) continue;
      this.unack.set(id, deadline);
      if (!this.queue.delete(id)) continue;
      const m = this.store.get(id);
      if (!m) continue;
      popped.push({ id, payload: m.payload, deadline });
    }
    return popped;
  }

  /**
   * Dyno's bulkPop: the same prefetch, then atomicBulkPopScriptLocalOnly over the prefetched ids:
   * an id no longer queued ends the call with no reply at all (what it claimed so far stays
   * claimed); one not due by now + 1 is skipped; one without a payload is left queued; the un-ack
   * entry is added only if absent, and the id is claimed either way.
   */
  bulkPop(count: number, afterPrefetch?: () => void): ModelLeased[] {
    this.prefetch(count, afterPrefetch);
    const ids = this.prefetched.splice(0, count);
    const deadline = this.now + this.unackTimeout;
    const popped: ModelLeased[] = [];
    for (const id of ids) {
      const score = this.queue.get(id);
      if (score === undefined) return [];
      const m = this.store.get(id);
      if (score > this.now + 1 || !m) continue;
      if (!this.unack.has(id)) this.unack.set(id, deadline);
      this.queue.delete(id);
      popped.push({ id, payload: m.payload, deadline });
    }
    return popped;
  }

  /** Dyno's popWithMsgId: ZRANK in the queue (due or not), HGET, ZADD NX into un-ack, ZREM. */
  popWithMsgId(id: string): ModelLeased | null {
    const m = this.store.get(id);
    if (!this.queue.has(id) || !m || this.unack.has(id)) return null;
    const deadline = this.now + this.unackTimeout;
    this.unack.set(id, deadline);
    this.queue.delete(id);
    return { id, payload: m.payload, deadline };
  }

  ack(id: string): boolean {
    if (!this.unack.delete(id)) return false;
    this.store.delete(id);
    return true;
  }

  /** No token: whatever lease the id has ends; back to the queue at now + priority / 100 if its payload is there. */
  release(id: string): boolean {
    if (!this.unack.delete(id)) return false;
    const m = this.store.get(id);
    if (!m) return false;
    this.queue.set(id, this.now + m.priority / 100);
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

  atomicRemove(id: string): boolean {
    const queued = this.queue.delete(id);
    const leased = this.unack.delete(id);
    this.store.delete(id);
    return queued || leased;
  }

  ensure(message: ModelMessage): boolean {
    if (this.queue.has(message.id) || this.unack.has(message.id)) return false;
    this.push([message]);
    return true;
  }

  private expired(): [string, number][] {
    return [...this.unack]
      .filter(([, s]) => s >= 0 && s <= this.now)
      .sort(byScore)
      .slice(0, PROCESS_UNACKS_BATCH);
  }

  processUnacks(): number {
    const expired = this.expired();
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

  /** The same steps in one script; an entry counts as moved whether or not it was queued already. */
  atomicProcessUnacks(): number {
    let moved = 0;
    for (const [id, score] of this.expired()) {
      this.unack.delete(id);
      if (!this.store.has(id)) continue;
      this.queue.set(id, score);
      moved++;
    }
    return moved;
  }

  get(id: string): ModelMessage | null {
    return this.store.get(id) ?? null;
  }

  unackTime(id: string): number | null {
    return this.unack.get(id) ?? null;
  }

  /** Dyno's findStaleMsgs: of the first ids due on the shard, those with no payload and no lease. */
  findStale(): string[] {
    return [...this.queue]
      .filter(([, s]) => s >= 0 && s <= this.now)
      .sort(byScore)
      .slice(0, FIND_STALE_BATCH)
      .map(([id]) => id)
      .filter((id) => !this.store.has(id) && !this.unack.has(id));
  }

  messages(): ModelMessage[] {
    return [...this.store.values()];
  }

  queuedIds(): string[] {
    return [...this.queue.keys()];
  }

  losePayload(id: string): void {
    this.store.delete(id);
  }

  strayPayload(message: ModelMessage): void {
    this.store.set(message.id, message);
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
