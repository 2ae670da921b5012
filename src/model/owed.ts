import type { CheckerSettings, DeliverOp, KeptBackOp, PopOp, RunPhases } from './history.js';
import { latestDue } from './due-time.js';
import type { Hold } from './holds.js';
import type { OwedStretch } from './properties/judging.js';
import { mayHaveApplied, mayHaveCreated, shardAt, type MessageOps } from './message-ops.js';

/** A hold that ended without an ok/unknown ack, and what it owes (docs/CHECKER.md §2.5, slow recovery). */
interface Owed {
  readonly h: Hold;
  /** Its place among the message's holds (the later ones are its re-deliveries). */
  readonly index: number;
  /** How the hold ended, for the finding. */
  readonly ended: string;
  /** By when the reaper must have made it deliverable again: max(end of the hold, liveness start) + reaper period + recovery bound. */
  readonly from: number;
  /** The time rule's deadline: `from` + the delivery bound B. Only a deadline inside the run is judged. */
  readonly deadline: number;
}

/**
 * The holds of a message that ended without an ok/unknown ack (lease ran out, ack refused, released),
 * with what each owes, where that lies in the run.
 */
export function owedOf(m: MessageOps, holds: readonly Hold[], phases: RunPhases, settings: CheckerSettings): Owed[] {
  const allowance = settings.reaperIntervalMs + settings.recoveryBoundMs;
  const out: Owed[] = [];
  // A loop, not forEach with a closure: this runs for every message of a history of millions.
  for (let index = 0; index < holds.length; index++) {
    const h = holds[index]!;
    if (h.ack && mayHaveApplied(h.ack)) continue;
    const released = h.release && mayHaveApplied(h.release) ? h.release.completedAt : null;
    // An unknown release may not have applied: the lease still runs, so the later of the two bounds
    // what is owed (never blame an unknown). Found by a unit test: release unknown at 2100, lease to
    // 2500, re-delivered at 2900 was a slow recovery.
    const holdEnd = h.release?.outcome === 'unknown' ? Math.max(h.release.completedAt, h.leaseEnd) : (released ?? h.leaseEnd);
    let from = Math.max(holdEnd, phases.livenessStart) + allowance;
    const bound = settings.deliveryBoundMs ?? 0;
    // A reschedule that may have applied after the delivery (the reaper re-queued the message, then
    // its holder rescheduled it) makes it due later: not owed before that due time (docs/CHECKER.md §2.2 due
    // time; never blame an order the history allows). Counterexample: full-profile run seed
    // full-998036 (31 messages), m17's ok reschedule to +718 ms after its lease ran out.
    for (const r of m.reschedules) {
      if (mayHaveApplied(r) && r.invokedAt > h.d.completedAt && r.invokedAt <= from + bound) from = Math.max(from, latestDue(r) + allowance);
    }
    if (from + bound > phases.end) continue;
    const ended = released !== null ? `released at ${released}` : h.ack ? `ack refused at ${h.ack.completedAt}` : h.d.type === 'kept-back' ? `kept back by its pop, lease ended by ${h.leaseEnd}` : `lease ended at ${h.leaseEnd}`;
    out.push({ h, index, ended, from, deadline: from + bound });
  }
  return out;
}

/** The latest push or ensure that may have created the life a delivery came from (-Infinity: none). */
export function lifeStart(m: MessageOps, d: DeliverOp | KeptBackOp): number {
  return Math.max(-Infinity, ...m.pushes.filter((p) => mayHaveCreated(p) && p.invokedAt <= d.completedAt).map((p) => p.invokedAt));
}

/** The shard a hold's re-delivery is owed on (its delivery's, else its life's), if known. */
export function shardOwed(m: MessageOps, o: Owed): string | undefined {
  return o.h.d.shard ?? shardAt(m, o.h.d.completedAt);
}

/**
 * When each re-delivery was owed (un-ack recovery, on demand): from `from` until the message was taken
 * again, acked, removed or created anew (whichever came first), or the end of the run — except while
 * an unknown pop that could reach it may have leased it to nobody: from that pop's invocation until
 * such a lease (as long as the hold's) has ended and the allowance has passed again (never blame an
 * order the history allows).
 */
export function owedStretches(id: string, m: MessageOps, holds: readonly Hold[], reaching: readonly PopOp[], phases: RunPhases, settings: CheckerSettings): OwedStretch[] {
  const out: OwedStretch[] = [];
  const allowance = settings.reaperIntervalMs + settings.recoveryBoundMs;
  for (const o of owedOf(m, holds, phases, settings)) {
    const shard = shardOwed(m, o);
    if (shard === undefined) continue;
    const since = lifeStart(m, o.h.d);
    let to = phases.end;
    for (const n of holds.slice(o.index + 1)) to = Math.min(to, n.d.invokedAt);
    for (const a of [...m.acks, ...m.removes]) if (mayHaveApplied(a) && a.completedAt >= since) to = Math.min(to, a.invokedAt);
    for (const p of m.pushes) if (mayHaveCreated(p) && p.invokedAt > o.h.d.completedAt) to = Math.min(to, p.invokedAt);
    const lease = o.h.d.leaseUntil - o.h.d.invokedAt;
    const gaps = reaching
      .filter((p) => p.completedAt > o.h.until && p.invokedAt < to)
      .map((p) => ({ from: p.invokedAt, to: p.completedAt + lease + allowance }))
      .sort((a, b) => a.from - b.from);
    let from = o.from;
    for (const g of gaps) {
      if (g.from > from) out.push({ shard, iv: { id, priority: 0, from, to: Math.min(g.from, to) }, holder: o.h.d.process, ended: o.ended });
      from = Math.max(from, g.to);
      if (from >= to) break;
    }
    if (to > from) out.push({ shard, iv: { id, priority: 0, from, to }, holder: o.h.d.process, ended: o.ended });
  }
  return out;
}
