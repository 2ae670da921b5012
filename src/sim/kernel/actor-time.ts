import type { Clock, TimerHandle, Timers } from '../../queue/time.js';
import type { Kernel, Scheduled } from './kernel.js';

/**
 * The clock one actor or node reads: true virtual time plus its skew. Skew changes by faults
 * (a slow drift set as an offset, or a jump); timers measure durations, which skew does not change.
 */
export class SkewedClock implements Clock {
  offset = 0;
  /** Reads while the clock was off true time: how a clock fault shows that it mattered. */
  readsWhileSkewed = 0;

  constructor(private readonly kernel: Kernel) {}

  now(): number {
    if (this.offset !== 0) this.readsWhileSkewed++;
    return Math.floor(this.kernel.now + this.offset);
  }
}

/** An actor's timers on virtual time; a paused actor's callbacks wait until the pause ends. */
export class ActorTimers implements Timers {
  private nextId = 0;
  private readonly live = new Map<number, Scheduled>();
  pausedUntil = 0;
  stopped = false;

  constructor(private readonly kernel: Kernel) {}

  setTimeout(callback: () => void, delayMs: number): TimerHandle {
    const id = ++this.nextId;
    this.live.set(id, this.kernel.quietAfter(delayMs, () => this.fire(id, callback)));
    return id;
  }

  clearTimeout(handle: TimerHandle): void {
    this.live.get(handle as number)?.cancel();
    this.live.delete(handle as number);
  }

  get pendingTimers(): number {
    return this.live.size;
  }

  /** Runs `fn` now, or when this actor's pause ends; never after it stopped. */
  deliver(fn: () => void): void {
    if (this.stopped) return;
    if (this.kernel.now < this.pausedUntil) this.kernel.quietAt(this.pausedUntil, () => this.deliver(fn));
    else {
      // What the actor runs now resolves its promises (replies, sleeps) or starts async work.
      this.kernel.settled();
      fn();
    }
  }

  private fire(id: number, callback: () => void): void {
    this.deliver(() => {
      if (!this.live.delete(id)) return;
      callback();
    });
  }
}
