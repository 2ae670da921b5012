import type { Clock, TimerHandle, Timers } from '../queue/time.js';

/** A hand-driven clock and timers (tests, model checks): nothing happens until advance() is called. */
export class FakeTime implements Clock, Timers {
  private t: number;
  private seq = 0;
  private readonly pending = new Map<number, { at: number; fn: () => void }>();

  constructor(start = 1_700_000_000_000) {
    this.t = start;
  }

  now(): number {
    return this.t;
  }

  setTimeout(callback: () => void, delayMs: number): TimerHandle {
    const id = ++this.seq;
    this.pending.set(id, { at: this.t + Math.max(0, delayMs), fn: callback });
    return id;
  }

  clearTimeout(handle: TimerHandle): void {
    this.pending.delete(handle as number);
  }

  get pendingTimers(): number {
    return this.pending.size;
  }

  /** Moves time forward, firing due timers in order and letting their async work settle. */
  async advance(ms: number): Promise<void> {
    const target = this.t + ms;
    for (;;) {
      await settle();
      const next = [...this.pending.entries()].filter(([, p]) => p.at <= target).sort((a, b) => a[1].at - b[1].at || a[0] - b[0])[0];
      if (!next) break;
      this.pending.delete(next[0]);
      this.t = Math.max(this.t, next[1].at);
      next[1].fn();
    }
    this.t = target;
    await settle();
  }
}

/** Lets promise chains that wait on real I/O (a Redis reply) finish. */
export async function settle(rounds = 20): Promise<void> {
  for (let i = 0; i < rounds; i++) await new Promise((r) => setImmediate(r));
}
