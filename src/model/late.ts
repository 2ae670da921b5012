import type { DeliverOp, PopOp } from './history.js';
import type { FreeInterval } from './free-intervals.js';

/** A waiting pop that went without a free and due message of its shard for longer than B. */
interface LateFinding {
  readonly id: string;
  /** Beyond the bound, in ms: the longest such wait for this stretch of the message's freedom. */
  readonly beyondMs: number;
  readonly t: number;
  readonly processes: readonly string[];
  readonly pops: number;
}

interface LateJudgement {
  readonly findings: LateFinding[];
  /** Whether a message was free and due while a pop of its shard was waiting. */
  readonly exercised: boolean;
}

/** How far apart two pops of one consumer may be and still count as one wait: it asked again at once. */
const BACK_TO_BACK_MS = 1;

/**
 * The waits judged on one shard: its pops by the schedule that returned normally, where a consumer's
 * back-to-back pops — each but the last returning nothing, the next invoked within BACK_TO_BACK_MS —
 * are one wait. A consumer that long-polls in short calls is asking all along: judged per call, a
 * poll shorter than B could never be late however long a due message waited.
 */
export function waitingPops(pops: readonly PopOp[], shard: string): PopOp[] {
  const mine = pops.filter((p) => p.via === 'schedule' && p.shard === shard && p.outcome === 'ok');
  const byProcess = new Map<string, PopOp[]>();
  for (const p of mine) {
    const list = byProcess.get(p.process);
    if (list) list.push(p);
    else byProcess.set(p.process, [p]);
  }
  const waits: PopOp[] = [];
  for (const list of byProcess.values()) {
    list.sort((a, b) => a.invokedAt - b.invokedAt);
    let current: PopOp | null = null;
    for (const p of list) {
      if (current && current.delivered === 0 && p.invokedAt >= current.completedAt && p.invokedAt - current.completedAt <= BACK_TO_BACK_MS) {
        current = { ...p, invokedAt: current.invokedAt };
      } else {
        if (current) waits.push(current);
        current = p;
      }
    }
    if (current) waits.push(current);
  }
  return waits;
}

/**
 * Late (docs/CHECKER.md §3): a pop by the schedule on shard s, waiting for longer than `boundMs` while some
 * message of s was free and due. One finding per stretch of a message's freedom, with the longest
 * wait beyond the bound and how many pops waited past it.
 */
export function judgeLate(pops: readonly PopOp[], free: readonly FreeInterval[], boundMs: number): LateJudgement {
  const byStretch = new Map<FreeInterval, { beyondMs: number; t: number; processes: Set<string>; pops: number }>();
  let exercised = false;
  const sortedPops = [...pops].sort((a, b) => a.completedAt - b.completedAt);
  const longest = sortedPops.reduce((n, p) => Math.max(n, p.completedAt - p.invokedAt), 0);
  const intervals = [...free].sort((a, b) => a.from - b.from);
  let next = 0;
  let active: FreeInterval[] = [];
  for (const p of sortedPops) {
    while (next < intervals.length && intervals[next]!.from < p.completedAt) active.push(intervals[next++]!);
    // An interval that ended before any later pop could have begun is done with.
    active = active.filter((iv) => iv.to > p.completedAt - longest);
    for (const iv of active) {
      const overlap = Math.min(p.completedAt, iv.to) - Math.max(p.invokedAt, iv.from);
      if (overlap <= 0) continue;
      exercised = true;
      if (overlap <= boundMs) continue;
      const f = byStretch.get(iv) ?? { beyondMs: 0, t: p.completedAt, processes: new Set<string>(), pops: 0 };
      f.beyondMs = Math.max(f.beyondMs, overlap - boundMs);
      f.processes.add(p.process);
      f.pops++;
      byStretch.set(iv, f);
    }
  }
  const findings = [...byStretch].map(([iv, f]) => ({ id: iv.id, beyondMs: f.beyondMs, t: f.t, processes: [...f.processes].sort(), pops: f.pops }));
  return { findings, exercised };
}

/**
 * Lateness of each delivery by the schedule that ended a stretch of freedom: its return minus the
 * later of the stretch's start (the message free and due) and the moment a pop of its shard began
 * waiting (docs/CHECKER.md §2.4 figures). Deliveries that did not follow a stretch (taken as it fell due) count 0.
 */
export function latenessOf(deliveries: readonly DeliverOp[], free: readonly FreeInterval[], pops: readonly PopOp[]): number[] {
  const byReturn = [...pops].sort((a, b) => a.completedAt - b.completedAt);
  // Earliest invocation among pops returning at or after index i.
  const suffixMin = new Array<number>(byReturn.length + 1).fill(Infinity);
  for (let i = byReturn.length - 1; i >= 0; i--) suffixMin[i] = Math.min(suffixMin[i + 1]!, byReturn[i]!.invokedAt);
  const firstReturningFrom = (t: number) => {
    let lo = 0;
    let hi = byReturn.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (byReturn[mid]!.completedAt < t) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
  const stretchEndingAt = new Map<string, FreeInterval>();
  for (const iv of free) stretchEndingAt.set(`${iv.id}\u0000${iv.to}`, iv);
  const out: number[] = [];
  for (const d of deliveries) {
    if ((d.via ?? 'schedule') !== 'schedule') continue;
    const iv = stretchEndingAt.get(`${d.id}\u0000${d.invokedAt}`);
    if (!iv) {
      out.push(0);
      continue;
    }
    const waitingFrom = Math.max(iv.from, suffixMin[firstReturningFrom(iv.from)]!);
    out.push(Math.max(0, d.completedAt - Math.min(waitingFrom, d.invokedAt)));
  }
  return out;
}
