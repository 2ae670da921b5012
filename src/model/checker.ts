import type { CheckerSettings, HistoryEvent, RunPhases } from './history.js';

export type ViolationKind = 'lost' | 'double-pop' | 'duplicate' | 'early' | 'slow-recovery' | 'resurrection' | 'unexpected';

/** Which kinds break a property; `duplicate` is reported but at-least-once allows it. */
export const FAILURE_KINDS: readonly ViolationKind[] = ['lost', 'double-pop', 'early', 'slow-recovery', 'resurrection', 'unexpected'];

export interface Violation {
  readonly kind: ViolationKind;
  readonly id: string;
  readonly t: number;
  readonly actors: readonly string[];
  readonly detail: string;
}

export interface CheckReport {
  readonly pushed: number;
  readonly delivered: number;
  readonly acked: number;
  readonly violations: readonly Violation[];
  readonly counts: Readonly<Record<ViolationKind, number>>;
  /** Due → delivery latency of first deliveries (ms). */
  readonly latency: { readonly p50: number; readonly p99: number };
  readonly properties: {
    readonly atLeastOnce: boolean;
    readonly unackRecovery: boolean;
    readonly noDoublePop: boolean;
  };
}

interface Delivery {
  readonly t: number;
  readonly actor: string;
  heldUntil: number;
  leaseUntil: number;
  acked: boolean;
}

/** Nearest-rank percentile for p below 100 (the index then stays inside the array). */
function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.floor((p / 100) * sorted.length)]!;
}

/**
 * Decides SPEC §6 over one history. Events are grouped by message id and each group is walked in
 * time order: O(n log n) overall.
 */
export function checkHistory(history: readonly HistoryEvent[], phases: RunPhases, settings: CheckerSettings): CheckReport {
  const byId = new Map<string, HistoryEvent[]>();
  for (const e of history) {
    const list = byId.get(e.id);
    if (list) list.push(e);
    else byId.set(e.id, [e]);
  }
  const violations: Violation[] = [];
  const latencies: number[] = [];
  let pushed = 0;
  let delivered = 0;
  let acked = 0;
  const order = { push: 0, remove: 1, ack: 2, extend: 3, deliver: 4 } as const;

  for (const [id, raw] of byId) {
    const events = [...raw].sort((a, b) => a.t - b.t || order[a.type] - order[b.type]);
    const pushes = events.filter((e) => e.type === 'push');
    const okPushes = pushes.filter((e) => e.ok);
    pushed += okPushes.length > 0 ? 1 : 0;
    let due = Infinity;
    let ackedAt: number | null = null;
    let removed = false;
    let deliveredAfterPush = false;
    let everDelivered = 0;
    const deliveredBy: { t: number; actor: string }[] = [];
    let lastPushAt = -Infinity;
    const deliveries: Delivery[] = [];

    for (const e of events) {
      if (e.type === 'push') {
        // A push that failed may still have been applied, so it counts for due times too.
        const pushDue = e.invokedAt + e.delayMs;
        due = due === Infinity || ackedAt !== null || removed ? pushDue : Math.min(due, pushDue);
        lastPushAt = e.invokedAt;
        ackedAt = null;
        removed = false;
        deliveredAfterPush = false;
      } else if (e.type === 'remove') {
        if (e.ok) removed = true;
      } else if (e.type === 'deliver') {
        delivered++;
        everDelivered++;
        deliveredBy.push({ t: e.t, actor: e.actor });
        if (pushes.length === 0) {
          violations.push({ kind: 'unexpected', id, t: e.t, actors: [e.actor], detail: 'delivered but never pushed' });
          continue;
        }
        if (ackedAt !== null && e.invokedAt > ackedAt && lastPushAt < ackedAt) {
          violations.push({
            kind: 'resurrection',
            id,
            t: e.t,
            actors: [e.actor],
            detail: `delivered at ${e.t} after an ack returned at ${ackedAt}`,
          });
        }
        if (Number.isFinite(due) && e.t < due) {
          violations.push({ kind: 'early', id, t: e.t, actors: [e.actor], detail: `delivered at ${e.t}, due at ${due}` });
        }
        if (!deliveredAfterPush && Number.isFinite(due)) latencies.push(e.t - due);
        deliveredAfterPush = true;
        const holder = deliveries.find((d) => d.t <= e.t && e.t < d.heldUntil);
        if (holder) {
          violations.push({
            kind: 'double-pop',
            id,
            t: e.t,
            actors: [holder.actor, e.actor],
            detail: `delivered to ${e.actor} at ${e.t} while ${holder.actor} held it (popped at ${holder.t}, held until ${holder.heldUntil})`,
          });
        }
        deliveries.push({ t: e.t, actor: e.actor, heldUntil: e.leaseUntil, leaseUntil: e.leaseUntil, acked: false });
      } else if (e.type === 'extend') {
        const d = lastHeldBy(deliveries, e.actor);
        if (e.ok && d && d.heldUntil >= e.invokedAt) d.heldUntil = d.leaseUntil = Math.max(d.leaseUntil, e.leaseUntil);
      } else {
        // the only kind left: ack
        if (!e.ok) continue;
        acked++;
        ackedAt = e.t;
        const d = lastHeldBy(deliveries, e.actor);
        if (d) {
          d.acked = true;
          d.heldUntil = Math.min(d.heldUntil, e.t);
        }
      }
    }

    if (everDelivered > 1) {
      violations.push({
        kind: 'duplicate',
        id,
        t: deliveredBy[1]!.t,
        actors: deliveredBy.map((d) => d.actor),
        detail: `delivered ${everDelivered} times`,
      });
    }
    const needsDelivery = okPushes.length > 0 && !removed && ackedAt === null;
    if (needsDelivery && everDelivered === 0) {
      violations.push({ kind: 'lost', id, t: phases.end, actors: [okPushes[0]!.actor], detail: `pushed at ${okPushes[0]!.t}, never delivered` });
    }
    // Un-ack recovery, judged for leases that expired in the liveness phase.
    if (!removed) {
      const allowance = settings.reaperIntervalMs + settings.recoveryBoundMs;
      for (let i = 0; i < deliveries.length; i++) {
        const d = deliveries[i]!;
        if (d.acked || d.leaseUntil < phases.livenessStart) continue;
        const deadline = d.leaseUntil + allowance;
        if (deadline > phases.end) continue;
        const next = deliveries[i + 1];
        const ackedBefore = ackedAt !== null && ackedAt <= deadline;
        if (!ackedBefore && (!next || next.t > deadline)) {
          violations.push({
            kind: 'slow-recovery',
            id,
            t: deadline,
            actors: [d.actor],
            detail: `lease of ${d.actor} ended at ${d.leaseUntil}; not re-delivered by ${deadline}`,
          });
        }
      }
    }
  }

  violations.sort((a, b) => a.t - b.t || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const counts = Object.fromEntries(
    (['lost', 'double-pop', 'duplicate', 'early', 'slow-recovery', 'resurrection', 'unexpected'] as ViolationKind[]).map((k) => [k, 0]),
  ) as Record<ViolationKind, number>;
  for (const v of violations) counts[v.kind]++;
  latencies.sort((a, b) => a - b);
  return {
    pushed,
    delivered,
    acked,
    violations,
    counts,
    latency: { p50: percentile(latencies, 50), p99: percentile(latencies, 99) },
    properties: {
      atLeastOnce: counts.lost === 0,
      unackRecovery: counts['slow-recovery'] === 0,
      noDoublePop: counts['double-pop'] === 0,
    },
  };
}

function lastHeldBy(deliveries: readonly Delivery[], actor: string): Delivery | undefined {
  for (let i = deliveries.length - 1; i >= 0; i--) if (deliveries[i]!.actor === actor) return deliveries[i];
  return undefined;
}
