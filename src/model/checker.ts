import type { AckOp, CheckerSettings, DeliverOp, ExtendOp, HistoryOp, PushOp, RemoveOp, RunPhases } from './history.js';
import { propertiesFrom, zeroPerKind, type PropertyName, type ViolationKind } from './properties.js';

export interface Violation {
  readonly kind: ViolationKind;
  readonly id: string;
  /** When it became a violation (a delivery's return, a recovery deadline, the end of the run). */
  readonly t: number;
  readonly processes: readonly string[];
  readonly detail: string;
}

export interface CheckReport {
  /** Messages (ids) with a push that returned ok. */
  readonly pushed: number;
  /** Messages delivered at least once, and deliveries in total. */
  readonly delivered: number;
  readonly deliveries: number;
  /** Messages with an ack that returned ok. */
  readonly acked: number;
  /** Operations whose outcome is unknown (the checker neither required nor blamed their effect). */
  readonly unknownOps: number;
  readonly violations: readonly Violation[];
  /** Findings per kind, and distinct messages affected per kind. */
  readonly counts: Readonly<Record<ViolationKind, number>>;
  readonly messagesAffected: Readonly<Record<ViolationKind, number>>;
  /** Due → delivery latency of the first delivery after each push (ms). */
  readonly latency: { readonly p50: number; readonly p99: number };
  readonly properties: Readonly<Record<PropertyName, boolean>>;
}

/** Nearest-rank percentile for p below 100 (the index then stays inside the array). */
function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.floor((p / 100) * sorted.length)]!;
}

/** The operations of one message, split by type; deliveries in the order they returned. */
interface MessageOps {
  readonly pushes: PushOp[];
  readonly deliveries: DeliverOp[];
  readonly acks: AckOp[];
  readonly extends: ExtendOp[];
  readonly removes: RemoveOp[];
}

/** One delivery and how its hold ended (SPEC §6.2). */
interface Hold {
  readonly d: DeliverOp;
  /** The lease deadline, extended by ok extends that returned while held. */
  leaseEnd: number;
  /** The holder's first ack of this delivery (any outcome), if it returned. */
  ack: AckOp | undefined;
  readonly until: number;
}

const mayHaveApplied = (op: { outcome: string }) => op.outcome !== 'fail';

function groupById(history: readonly HistoryOp[]): Map<string, MessageOps> {
  const byId = new Map<string, MessageOps>();
  for (const op of history) {
    let m = byId.get(op.id);
    if (!m) byId.set(op.id, (m = { pushes: [], deliveries: [], acks: [], extends: [], removes: [] }));
    if (op.type === 'push') m.pushes.push(op);
    else if (op.type === 'deliver') m.deliveries.push(op);
    else if (op.type === 'ack') m.acks.push(op);
    else if (op.type === 'extend') m.extends.push(op);
    else m.removes.push(op);
  }
  const byReturn = (a: { completedAt: number }, b: { completedAt: number }) => a.completedAt - b.completedAt;
  for (const m of byId.values()) {
    m.deliveries.sort(byReturn);
    m.acks.sort(byReturn);
    m.extends.sort(byReturn);
  }
  return byId;
}

/**
 * The delivery an ack or extend of `process` is about: its latest delivery to that process that
 * returned no later than the call was made.
 */
function deliveryOf(deliveries: readonly DeliverOp[], op: { process: string; invokedAt: number }): DeliverOp | undefined {
  let found: DeliverOp | undefined;
  for (const d of deliveries) {
    if (d.completedAt > op.invokedAt) break;
    if (d.process === op.process) found = d;
  }
  return found;
}

function holdsOf(m: MessageOps): Hold[] {
  return m.deliveries.map((d) => {
    const ack = m.acks.find((a) => deliveryOf(m.deliveries, a) === d);
    const ackEnd = ack?.completedAt ?? Infinity;
    let leaseEnd = d.leaseUntil;
    for (const e of m.extends) {
      if (e.outcome === 'ok' && deliveryOf(m.deliveries, e) === d && e.completedAt <= Math.min(leaseEnd, ackEnd)) {
        leaseEnd = Math.max(leaseEnd, e.leaseUntil);
      }
    }
    return { d, leaseEnd, ack, until: Math.min(leaseEnd, ackEnd) };
  });
}

interface Judged {
  readonly violations: Violation[];
  readonly latencies: number[];
}

/** Every definition of SPEC §6.2 over the operations of one message. */
function judgeMessage(id: string, m: MessageOps, phases: RunPhases, settings: CheckerSettings, out: Judged): void {
  const found = (kind: ViolationKind, t: number, processes: string[], detail: string) => out.violations.push({ kind, id, t, processes, detail });
  const holds = holdsOf(m);

  if (m.deliveries.length > 1) {
    found('duplicate', m.deliveries[1]!.completedAt, m.deliveries.map((d) => d.process), `delivered ${m.deliveries.length} times`);
  }
  if (m.pushes.length === 0) {
    for (const d of m.deliveries) found('unexpected', d.completedAt, [d.process], 'delivered but never pushed');
    return;
  }

  // Double pop: delivered while a delivery to another holder is still held.
  holds.forEach((h2, i) => {
    const h1 = holds.slice(0, i).find((h) => h.d.process !== h2.d.process && h2.d.completedAt < h.until);
    if (h1) {
      found(
        'double-pop',
        h2.d.completedAt,
        [h1.d.process, h2.d.process],
        `delivered to ${h2.d.process} at ${h2.d.completedAt} while ${h1.d.process} held it (popped at ${h1.d.completedAt}, held until ${h1.until})`,
      );
    }
  });

  // Resurrection: delivered after an ack of it returned ok, with no push that may have landed between.
  const okAcks = m.acks.filter((a) => a.outcome === 'ok');
  const effectivePushes = m.pushes.filter(mayHaveApplied);
  for (const d of m.deliveries) {
    const ack = okAcks.find(
      (a) => a.completedAt < d.invokedAt && !effectivePushes.some((p) => p.completedAt >= a.invokedAt && p.invokedAt < d.completedAt),
    );
    if (ack) found('resurrection', d.completedAt, [d.process], `delivered at ${d.completedAt} after an ack returned at ${ack.completedAt}`);
  }

  judgeDueTimes(m, found, out.latencies);
  judgeLoss(m, phases, found);
  judgeRecovery(m, holds, phases, settings, found);
}

type Found = (kind: ViolationKind, t: number, processes: string[], detail: string) => void;

/**
 * Early deliveries and latency. A push sets the due time; a later push keeps the earliest due time
 * unless the message was acked or removed (ok) since, when it starts afresh. A failed push had no effect.
 */
function judgeDueTimes(m: MessageOps, found: Found, latencies: number[]): void {
  type Step = { t: number; rank: number; run: () => void };
  let due = Infinity;
  let consumed = false;
  let deliveredSincePush = false;
  const steps: Step[] = [];
  for (const p of m.pushes.filter(mayHaveApplied)) {
    steps.push({
      t: p.invokedAt,
      rank: 0,
      run: () => {
        const pushDue = p.invokedAt + p.delayMs;
        due = due === Infinity || consumed ? pushDue : Math.min(due, pushDue);
        consumed = false;
        deliveredSincePush = false;
      },
    });
  }
  for (const r of m.removes) if (r.outcome === 'ok') steps.push({ t: r.completedAt, rank: 1, run: () => (consumed = true) });
  for (const a of m.acks) if (a.outcome === 'ok') steps.push({ t: a.completedAt, rank: 2, run: () => (consumed = true) });
  for (const d of m.deliveries) {
    steps.push({
      t: d.completedAt,
      rank: 3,
      run: () => {
        if (!Number.isFinite(due)) return;
        if (d.completedAt < due) found('early', d.completedAt, [d.process], `delivered at ${d.completedAt}, due at ${due}`);
        if (!deliveredSincePush) latencies.push(d.completedAt - due);
        deliveredSincePush = true;
      },
    });
  }
  steps.sort((a, b) => a.t - b.t || a.rank - b.rank);
  for (const s of steps) s.run();
}

/**
 * At-least-once is about processing: the latest push that returned ok must be followed by an ack
 * that returned ok or unknown, or a remove that may have applied, by the end of the run.
 */
function judgeLoss(m: MessageOps, phases: RunPhases, found: Found): void {
  const okPushes = m.pushes.filter((p) => p.outcome === 'ok');
  if (okPushes.length === 0) return;
  const last = okPushes.reduce((a, b) => (b.invokedAt > a.invokedAt ? b : a));
  const discharged = m.acks.some((a) => mayHaveApplied(a) && a.completedAt >= last.invokedAt) || m.removes.some((r) => mayHaveApplied(r) && r.completedAt >= last.invokedAt);
  if (discharged) return;
  const after = m.deliveries.filter((d) => d.completedAt >= last.invokedAt);
  if (after.length === 0) {
    found('lost-never-delivered', phases.end, [last.process], `pushed at ${last.completedAt}, never delivered`);
  } else {
    const endings = after.map((d) => d.process).join(', ');
    found('lost-after-delivery', phases.end, [last.process, ...after.map((d) => d.process)], `pushed at ${last.completedAt}, delivered to ${endings}, never acked`);
  }
}

/**
 * Un-ack recovery: a hold that ended without an ok/unknown ack must be followed by another delivery
 * by max(lease deadline, start of liveness) + reaper period + bound, where that point lies in the run.
 */
function judgeRecovery(m: MessageOps, holds: readonly Hold[], phases: RunPhases, settings: CheckerSettings, found: Found): void {
  const allowance = settings.reaperIntervalMs + settings.recoveryBoundMs;
  holds.forEach((h, i) => {
    if (h.ack && mayHaveApplied(h.ack)) return;
    const deadline = Math.max(h.leaseEnd, phases.livenessStart) + allowance;
    if (deadline > phases.end) return;
    // Processed (or removed) since the push this delivery came from, by the deadline: nothing owed.
    const since = Math.max(-Infinity, ...m.pushes.filter((p) => mayHaveApplied(p) && p.invokedAt <= h.d.completedAt).map((p) => p.invokedAt));
    const inWindow = (t: number) => t >= since && t <= deadline;
    if (holds.slice(i + 1).some((n) => n.d.completedAt <= deadline)) return;
    if (m.acks.some((a) => mayHaveApplied(a) && inWindow(a.completedAt))) return;
    if (m.removes.some((r) => mayHaveApplied(r) && inWindow(r.completedAt))) return;
    const ended = h.ack ? `ack refused at ${h.ack.completedAt}` : `lease ended at ${h.leaseEnd}`;
    found('slow-recovery', deadline, [h.d.process], `delivery to ${h.d.process} (${ended}); not re-delivered by ${deadline}`);
  });
}

/**
 * Decides SPEC §6 over one history: operations are grouped by message and each group judged on its
 * own, O(n log n) overall.
 */
export function checkHistory(history: readonly HistoryOp[], phases: RunPhases, settings: CheckerSettings): CheckReport {
  const byId = groupById(history);
  const out: Judged = { violations: [], latencies: [] };
  let pushed = 0;
  let delivered = 0;
  let acked = 0;
  for (const [id, m] of byId) {
    if (m.pushes.some((p) => p.outcome === 'ok')) pushed++;
    if (m.deliveries.length > 0) delivered++;
    if (m.acks.some((a) => a.outcome === 'ok')) acked++;
    judgeMessage(id, m, phases, settings, out);
  }
  const violations = out.violations.sort((a, b) => a.t - b.t || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const counts = zeroPerKind();
  const messagesAffected = zeroPerKind();
  const seen = new Set<string>();
  for (const v of violations) {
    counts[v.kind]++;
    const key = `${v.kind}\u0000${v.id}`;
    if (!seen.has(key)) {
      seen.add(key);
      messagesAffected[v.kind]++;
    }
  }
  const latencies = out.latencies.sort((a, b) => a - b);
  return {
    pushed,
    delivered,
    deliveries: history.filter((e) => e.type === 'deliver').length,
    acked,
    unknownOps: history.filter((e) => e.outcome === 'unknown').length,
    violations,
    counts,
    messagesAffected,
    latency: { p50: percentile(latencies, 50), p99: percentile(latencies, 99) },
    properties: propertiesFrom(counts),
  };
}
