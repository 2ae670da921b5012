import type { HistoryOp } from '../model/history.js';

/** Plots over time, binned over the whole run from every operation (never from a sample). */
export interface Series {
  readonly from: number;
  readonly binMs: number;
  /** Deliveries per second in each bin. */
  readonly deliveriesPerSecond: number[];
  /** Mean delivery latency (ms) of the deliveries in each bin: delivery − due time of the push that preceded it; null where none. */
  readonly latencyMs: (number | null)[];
  /** Deliveries held at some moment of each bin (popped, not yet acked / released, lease not run out). */
  readonly holdsInFlight: number[];
}

const SERIES_BINS = 400;

export function seriesOf(history: readonly HistoryOp[], from: number, to: number, bins = SERIES_BINS): Series {
  const series = new SeriesBins(from, to, bins);
  series.add(history);
  return series.done();
}

/**
 * The plots, gathered a few messages at a time (a history read as a stream gives one message's
 * operations at a time): every figure is a sum over messages, so adding them in any grouping gives
 * seriesOf's plots of the whole.
 */
export class SeriesBins {
  private readonly binMs: number;
  private readonly delivered: number[];
  private readonly latencySum: number[];
  private readonly change: number[];

  constructor(
    private readonly from: number,
    to: number,
    private readonly bins = SERIES_BINS,
  ) {
    this.binMs = Math.max(1, (to - from) / bins);
    this.delivered = new Array<number>(bins).fill(0);
    this.latencySum = new Array<number>(bins).fill(0);
    this.change = new Array<number>(bins + 1).fill(0);
  }

  private bin(t: number): number {
    return Math.min(this.bins - 1, Math.max(0, Math.floor((t - this.from) / this.binMs)));
  }

  /** A hold [start, end) counts in every bin it overlaps. */
  private close(start: number, end: number): void {
    const first = this.bin(start);
    this.change[first]! += 1;
    const last = end <= start ? first : Math.min(this.bins - 1, Math.max(first, Math.ceil((end - this.from) / this.binMs) - 1));
    this.change[last + 1]! -= 1;
  }

  /** Operations of whole messages (every operation of each message they touch). */
  add(history: readonly HistoryOp[]): void {
    const due = new Map<string, number>();
    // A hold ends at its holder's first ack or release returned after it, or at its lease end.
    const open = new Map<string, { process: string; at: number; leaseUntil: number }[]>();
    const ops = [...history].sort((a, b) => a.completedAt - b.completedAt);
    for (const o of ops) {
      if ((o.type === 'push' || o.type === 'ensure') && o.outcome !== 'fail') due.set(o.id, o.invokedAt + o.delayMs);
      else if (o.type === 'reschedule' && o.outcome === 'ok') due.set(o.id, o.invokedAt + o.delayMs);
      else if (o.type === 'deliver') {
        const b = this.bin(o.completedAt);
        this.delivered[b]! += 1;
        this.latencySum[b]! += Math.max(0, o.completedAt - (due.get(o.id) ?? o.invokedAt));
        const holds = open.get(o.id) ?? [];
        holds.push({ process: o.process, at: o.completedAt, leaseUntil: o.leaseUntil });
        open.set(o.id, holds);
      } else if (o.type === 'ack' || o.type === 'release') {
        const holds = open.get(o.id);
        const i = holds?.findIndex((h) => h.process === o.process) ?? -1;
        if (holds && i >= 0) {
          const [h] = holds.splice(i, 1);
          this.close(h!.at, Math.min(o.completedAt, h!.leaseUntil));
        }
        if (o.type === 'release' && o.outcome === 'ok') due.set(o.id, o.invokedAt);
      } else if (o.type === 'extend' && o.outcome === 'ok') {
        const h = open.get(o.id)?.find((x) => x.process === o.process);
        if (h) h.leaseUntil = Math.max(h.leaseUntil, o.leaseUntil);
      }
    }
    for (const holds of open.values()) for (const h of holds) this.close(h.at, h.leaseUntil);
  }

  done(): Series {
    const holdsInFlight: number[] = [];
    let level = 0;
    for (let i = 0; i < this.bins; i++) holdsInFlight.push((level += this.change[i]!));
    return {
      from: this.from,
      binMs: this.binMs,
      deliveriesPerSecond: this.delivered.map((n) => (n * 1000) / this.binMs),
      latencyMs: this.delivered.map((n, i) => (n === 0 ? null : this.latencySum[i]! / n)),
      holdsInFlight,
    };
  }
}
