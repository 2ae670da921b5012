import type { Kernel } from '../kernel/kernel.js';

/** Which connection a piece of work came in on (any value; compared by identity). */
export type Source = unknown;

/** Work with no connection of its own (a timer of the process): its own turn. */
const OWN = Symbol('own');

/**
 * A server process that can be paused (SIGSTOP, a long GC) while its TCP connections stay open:
 * whatever reaches it meanwhile waits in its sockets, and its own timers wait too. Nothing is lost —
 * that is what tells a pause from a crash. On resume it works through **each connection's backlog in
 * turn** (its event loop reads one ready socket, then the next), not in global arrival order: the
 * connection whose backlog began first goes first, each in its own order (DYNOMITE.md "A resumed
 * Dynomite drains each peer connection in turn").
 */
export class PausableProcess {
  private pausedUntil = 0;
  private readonly waiting: { readonly fn: () => void; readonly source: Source }[] = [];
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

  /** Runs `fn` now, or when the process resumes, after what reached it first on the same connection (`source`). */
  run(fn: () => void, source: Source = OWN): void {
    if (!this.busy) return fn();
    if (this.paused) this.onHeld();
    this.waiting.push({ fn, source });
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
    // One connection's backlog at a time, the oldest first. Work run here may queue more (a reply to
    // itself): it waits for its connection's next turn, in the same pass.
    while (this.waiting.length > 0 && !this.paused) {
      const source = this.waiting[0]!.source;
      const turn = this.waiting.filter((w) => w.source === source);
      for (let i = this.waiting.length - 1; i >= 0; i--) if (this.waiting[i]!.source === source) this.waiting.splice(i, 1);
      for (const w of turn) w.fn();
    }
    this.draining = false;
  }
}
