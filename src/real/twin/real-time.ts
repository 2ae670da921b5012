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

/** A real client's timers: system timers that never fire once the client crashed. */
export class StoppableTimers implements Timers {
  private readonly live = new Set<NodeJS.Timeout>();
  stopped = false;

  setTimeout(callback: () => void, delayMs: number): TimerHandle {
    const handle = setTimeout(() => {
      this.live.delete(handle);
      if (!this.stopped) callback();
    }, delayMs);
    this.live.add(handle);
    return handle;
  }

  clearTimeout(handle: TimerHandle): void {
    clearTimeout(handle as NodeJS.Timeout);
    this.live.delete(handle as NodeJS.Timeout);
  }

  stop(): void {
    this.stopped = true;
    for (const h of this.live) clearTimeout(h);
    this.live.clear();
  }
}
