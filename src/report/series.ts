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

export const SERIES_BINS = 400;

export function seriesOf(history: readonly HistoryOp[], from: number, to: number, bins = SERIES_BINS): Series {
  const binMs = Math.max(1, (to - from) / bins);
  const bin = (t: number) => Math.min(bins - 1, Math.max(0, Math.floor((t - from) / binMs)));
  const delivered = new Array<number>(bins).fill(0);
  const latencySum = new Array<number>(bins).fill(0);
  const change = new Array<number>(bins + 1).fill(0);
  const due = new Map<string, number>();
  // A hold ends at its holder's first ack or release returned after it, or at its lease end.
  const open = new Map<string, { process: string; at: number; leaseUntil: number }[]>();
  // A hold [start, end) counts in every bin it overlaps.
  const close = (start: number, end: number) => {
    const first = bin(start);
    change[first]! += 1;
    const last = end <= start ? first : Math.min(bins - 1, Math.max(first, Math.ceil((end - from) / binMs) - 1));
    change[last + 1]! -= 1;
  };
  const ops = [...history].sort((a, b) => a.completedAt - b.completedAt);
  for (const o of ops) {
    if ((o.type === 'push' || o.type === 'ensure') && o.outcome !== 'fail') due.set(o.id, o.invokedAt + o.delayMs);
    else if (o.type === 'reschedule' && o.outcome === 'ok') due.set(o.id, o.invokedAt + o.delayMs);
    else if (o.type === 'deliver') {
      const b = bin(o.completedAt);
      delivered[b]! += 1;
      latencySum[b]! += Math.max(0, o.completedAt - (due.get(o.id) ?? o.invokedAt));
      const holds = open.get(o.id) ?? [];
      holds.push({ process: o.process, at: o.completedAt, leaseUntil: o.leaseUntil });
      open.set(o.id, holds);
    } else if (o.type === 'ack' || o.type === 'release') {
      const holds = open.get(o.id);
      const i = holds?.findIndex((h) => h.process === o.process) ?? -1;
      if (holds && i >= 0) {
        const [h] = holds.splice(i, 1);
        close(h!.at, Math.min(o.completedAt, h!.leaseUntil));
      }
      if (o.type === 'release' && o.outcome === 'ok') due.set(o.id, o.invokedAt);
    } else if (o.type === 'extend' && o.outcome === 'ok') {
      const h = open.get(o.id)?.find((x) => x.process === o.process);
      if (h) h.leaseUntil = Math.max(h.leaseUntil, o.leaseUntil);
    }
  }
  for (const holds of open.values()) for (const h of holds) close(h.at, h.leaseUntil);
  const holdsInFlight: number[] = [];
  let level = 0;
  for (let i = 0; i < bins; i++) holdsInFlight.push((level += change[i]!));
  return {
    from,
    binMs,
    deliveriesPerSecond: delivered.map((n) => (n * 1000) / binMs),
    latencyMs: delivered.map((n, i) => (n === 0 ? null : latencySum[i]! / n)),
    holdsInFlight,
  };
}
