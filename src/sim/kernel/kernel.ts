/** A scheduled event that can be called off (a request's timeout once its reply came). */
export interface Scheduled {
  cancel(): void;
}

/** One scheduled callback on virtual time. */
class SimEvent implements Scheduled {
  cancelled = false;

  constructor(
    readonly at: number,
    readonly seq: number,
    readonly run: () => void,
    /**
     * Quiet events (network deliveries, node-internal work) settle no promise by themselves; after
     * one, the kernel drains microtasks only if something it called said it did (`settled()`).
     */
    readonly quiet: boolean,
  ) {}

  cancel(): void {
    this.cancelled = true;
  }
}

/**
 * A 4-ary heap ordered by (time, scheduling order): equal times run in the order scheduled. Four
 * children per node halve the depth of a binary heap: fewer levels to sift an event down through.
 */
class EventHeap {
  private readonly items: SimEvent[] = [];

  get size(): number {
    return this.items.length;
  }

  push(e: SimEvent): void {
    // Sift up with a hole instead of swaps: one write per level.
    const a = this.items;
    let i = a.length;
    a.push(e);
    while (i > 0) {
      const p = (i - 1) >> 2;
      const parent = a[p]!;
      if (!before(e, parent)) break;
      a[i] = parent;
      i = p;
    }
    a[i] = e;
  }

  pop(): SimEvent | undefined {
    const a = this.items;
    const top = a[0];
    const last = a.pop();
    const n = a.length;
    if (n > 0 && last) {
      // Sift the last item down from the root with a hole, to the earliest of up to four children.
      let i = 0;
      for (;;) {
        const first = 4 * i + 1;
        if (first >= n) break;
        let m = first;
        const end = Math.min(first + 4, n);
        for (let c = first + 1; c < end; c++) if (before(a[c]!, a[m]!)) m = c;
        const child = a[m]!;
        if (!before(child, last)) break;
        a[i] = child;
        i = m;
      }
      a[i] = last;
    }
    return top;
  }
}

function before(a: SimEvent, b: SimEvent): boolean {
  return a.at < b.at || (a.at === b.at && a.seq < b.seq);
}

/**
 * Lets every pending promise continuation run. Node drains the whole microtask queue before it
 * turns to the next-tick queue, so a promise resolved from process.nextTick settles after every
 * continuation already in flight (the simulator has no other source of ticks or I/O).
 */
const drainMicrotasks = (): Promise<void> => new Promise((resolve) => process.nextTick(resolve));
/** Every so many events, a full event-loop turn, so that the process stays responsive (progress, RPC). */
const breathe = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));
const BREATHE_EVERY = 2_000;

/** Why a run stopped before its end: what the kernel was told, or its own event budget. */
export interface KernelStop {
  readonly kind: 'script-time-limit' | 'twin-differs' | 'event-budget' | 'time-budget';
  /** Virtual time of the stop. */
  readonly t: number;
  readonly detail: string;
  /** What it is about (a script's name), when not the whole run. */
  readonly subject?: string;
}

/** A wall-clock deadline: outside the simulation's determinism, read only between events. */
export interface WallDeadline {
  readonly now: () => number;
  readonly at: number;
}

/**
 * The simulation kernel: virtual time and an event queue. Async code (the real queue library)
 * runs on it deterministically: a simulated store call resolves when its event fires, and all
 * continuations settle before the next event. Nothing here reads the real clock.
 */
export class Kernel {
  private readonly heap = new EventHeap();
  private seq = 0;
  private time = 0;
  private executed = 0;
  /** Set when a quiet event settled a promise: its continuations must run before the next event. */
  private settledPromise = false;
  private stopReason: KernelStop | null = null;
  /** Events a run may execute before it counts as never ending (none: unbounded). */
  eventBudget = Infinity;
  /** Checked every BREATHE_EVERY events: past it, the run stops with a time-budget stop. */
  wallDeadline: WallDeadline | null = null;

  constructor(readonly startTime = 0) {
    this.time = startTime;
  }

  /** Why the run stopped early (null: it did not). Once stopped, no further event runs. */
  get stopped(): KernelStop | null {
    return this.stopReason;
  }

  /** Stops the run after the current event; the first stop is the one kept. */
  stop(reason: Omit<KernelStop, 't'>): void {
    this.stopReason ??= { ...reason, t: this.time };
  }

  get now(): number {
    return this.time;
  }

  get eventsExecuted(): number {
    return this.executed;
  }

  get pending(): number {
    return this.heap.size;
  }

  at(time: number, run: () => void): void {
    this.schedule(time, run, false);
  }

  after(delay: number, run: () => void): void {
    this.at(this.time + Math.max(0, delay), run);
  }

  /**
   * An event that settles no promise unless it calls `settled()`: the kernel skips the microtask
   * drain after it otherwise (most of a run's events are packets between nodes). Returns a handle
   * whose `cancel()` drops the event unrun.
   */
  quietAt(time: number, run: () => void): Scheduled {
    return this.schedule(time, run, true);
  }

  quietAfter(delay: number, run: () => void): Scheduled {
    return this.quietAt(this.time + Math.max(0, delay), run);
  }

  /** Called by whatever resolves or rejects a promise from inside a quiet event. */
  settled(): void {
    this.settledPromise = true;
  }

  private schedule(time: number, run: () => void, quiet: boolean): Scheduled {
    const event = new SimEvent(Math.max(time, this.time), this.seq++, run, quiet);
    this.heap.push(event);
    return event;
  }

  /** Runs events until none remain at or before `until`, then sets the clock to `until`. */
  async runUntil(until: number, stop: () => boolean = () => false): Promise<void> {
    await drainMicrotasks();
    this.checkWallDeadline();
    for (;;) {
      if (this.stopReason !== null || stop()) return;
      const next = this.heap.pop();
      if (!next) break;
      // A cancelled event changes nothing, so skipping it (clock included) is exactly running it.
      if (next.cancelled) continue;
      if (next.at > until) {
        this.heap.push(next);
        break;
      }
      this.time = next.at;
      this.executed++;
      next.run();
      if (!next.quiet || this.settledPromise) {
        this.settledPromise = false;
        await drainMicrotasks();
      }
      if (this.executed > this.eventBudget) this.stop({ kind: 'event-budget', detail: `the run passed its budget of ${this.eventBudget} events at t+${this.time - this.startTime} ms of virtual time` });
      if (this.executed % BREATHE_EVERY === 0) {
        this.checkWallDeadline();
        await breathe();
      }
    }
    this.time = Math.max(this.time, until);
  }

  private checkWallDeadline(): void {
    if (this.wallDeadline !== null && this.wallDeadline.now() >= this.wallDeadline.at) this.stop({ kind: 'time-budget', detail: 'time budget reached' });
  }
}
