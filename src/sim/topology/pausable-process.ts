import type { Kernel } from '../kernel/kernel.js';

/**
 * A server process that can be paused (SIGSTOP, a long GC) while its TCP connections stay open:
 * whatever reaches it meanwhile waits in its sockets and is handled, in arrival order, when it
 * resumes; its own timers wait too. Nothing is lost — that is what tells a pause from a crash.
 */
export class PausableProcess {
  private pausedUntil = 0;
  private readonly waiting: (() => void)[] = [];
  private draining = false;

  constructor(
    private readonly kernel: Kernel,
    /** Called for each piece of work that had to wait (what a pause fault reports as its exposure). */
    private readonly onHeld: () => void = () => undefined,
  ) {}

  get paused(): boolean {
    return this.kernel.now < this.pausedUntil;
  }

  /** True while work is waiting: new work must queue behind it to keep arrival order. */
  get busy(): boolean {
    return this.paused || this.waiting.length > 0;
  }

  /** Runs `fn` now, or when the process resumes, after everything that reached it first. */
  run(fn: () => void): void {
    if (!this.busy) return fn();
    if (this.paused) this.onHeld();
    this.waiting.push(fn);
    if (!this.paused) this.drain();
  }

  pause(until: number): void {
    if (until <= this.pausedUntil) return;
    this.pausedUntil = until;
    this.kernel.quietAt(until, () => this.drain());
  }

  /** Ends the pause now (the liveness phase heals every fault). */
  resume(): void {
    this.pausedUntil = 0;
    this.drain();
  }

  private drain(): void {
    if (this.paused || this.draining) return;
    this.draining = true;
    // Work run here may queue more (a reply to itself): it runs in the same pass, in order.
    while (this.waiting.length > 0 && !this.paused) this.waiting.shift()!();
    this.draining = false;
  }
}
