/** One scheduled callback on virtual time. */
interface SimEvent {
  readonly at: number;
  readonly seq: number;
  readonly run: () => void;
}

/** A binary heap ordered by (time, scheduling order): equal times run in the order scheduled. */
class EventHeap {
  private readonly items: SimEvent[] = [];

  get size(): number {
    return this.items.length;
  }

  push(e: SimEvent): void {
    const a = this.items;
    a.push(e);
    let i = a.length - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!before(a[i]!, a[p]!)) break;
      [a[i], a[p]] = [a[p]!, a[i]!];
      i = p;
    }
  }

  pop(): SimEvent | undefined {
    const a = this.items;
    const top = a[0];
    const last = a.pop();
    if (a.length > 0 && last) {
      a[0] = last;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < a.length && before(a[l]!, a[m]!)) m = l;
        if (r < a.length && before(a[r]!, a[m]!)) m = r;
        if (m === i) break;
        [a[i], a[m]] = [a[m]!, a[i]!];
        i = m;
      }
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

  constructor(readonly startTime = 0) {
    this.time = startTime;
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
    this.heap.push({ at: Math.max(time, this.time), seq: this.seq++, run });
  }

  after(delay: number, run: () => void): void {
    this.at(this.time + Math.max(0, delay), run);
  }

  /** Runs events until none remain at or before `until`, then sets the clock to `until`. */
  async runUntil(until: number, stop: () => boolean = () => false): Promise<void> {
    await drainMicrotasks();
    for (;;) {
      if (stop()) return;
      const next = this.heap.pop();
      if (!next) break;
      if (next.at > until) {
        this.heap.push(next);
        break;
      }
      this.time = next.at;
      this.executed++;
      next.run();
      await drainMicrotasks();
      if (this.executed % BREATHE_EVERY === 0) await breathe();
    }
    this.time = Math.max(this.time, until);
  }
}
