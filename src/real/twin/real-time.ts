import type { Clock, TimerHandle, Timers } from '../../queue/time.js';
import type { RunTime } from '../../sim/kernel/run-time.js';

/** A real twin's time: the system clock, in ms. */
export const realTime: RunTime = {
  get now() {
    return Date.now();
  },
};

/** A real client's clock: the system clock plus the offset a clock fault set. */
export class OffsetClock implements Clock {
  offset = 0;

  now(): number {
    return Date.now() + this.offset;
  }
}

/**
 * A real client's timers: system timers that never fire once the client crashed, and that wait while
 * it is paused (a client-pause fault: a GC-like stall, as a simulated actor's timers do).
 */
export class StoppableTimers implements Timers {
  private readonly live = new Set<NodeJS.Timeout>();
  stopped = false;
  /** System time (ms) until which nothing of this client runs; 0: not paused. */
  pausedUntil = 0;
  private readonly resumed = new Set<() => void>();

  setTimeout(callback: () => void, delayMs: number): TimerHandle {
    const handle = setTimeout(() => {
      this.live.delete(handle);
      if (!this.stopped) void this.afterPause().then(() => !this.stopped && callback());
    }, delayMs);
    this.live.add(handle);
    return handle;
  }

  clearTimeout(handle: TimerHandle): void {
    clearTimeout(handle as NodeJS.Timeout);
    this.live.delete(handle as NodeJS.Timeout);
  }

  /** Resolves at once, or when the pause ends (at pausedUntil, or at resume()). */
  afterPause(): Promise<void> {
    const left = this.pausedUntil - Date.now();
    if (left <= 0) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.resumed.delete(done);
        resolve();
      };
      const timer = setTimeout(done, left);
      this.resumed.add(done);
    });
  }

  /** Ends a pause now (the liveness phase heals every fault). */
  resume(): void {
    this.pausedUntil = 0;
    for (const done of [...this.resumed]) done();
  }

  stop(): void {
    this.stopped = true;
    for (const h of this.live) clearTimeout(h);
    this.live.clear();
    this.resume();
  }
}
