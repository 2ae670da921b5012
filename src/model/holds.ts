import type { AckOp, DeliverOp, KeptBackOp, ReleaseOp } from './history.js';
import { mayHaveApplied, mayHaveCreated, type MessageOps } from './message-ops.js';

/**
 * One delivery and how its hold ended (docs/CHECKER.md §2.1); or a lease a pop kept back (`d` a
 * kept-back operation): held by nobody, it ends when its lease runs out (or a remove deletes it).
 */
export interface Hold {
  readonly d: DeliverOp | KeptBackOp;
  /** The lease deadline, extended by ok extends that returned while held. */
  readonly leaseEnd: number;
  /** The holder's first ack of this delivery (any outcome), if it returned. */
  readonly ack: AckOp | undefined;
  /** The holder's first release of this delivery (any outcome), if it returned before its ack. */
  readonly release: ReleaseOp | undefined;
  /**
   * When the hold ended: the ack's return (or earlier, see `ackEnd`), the lease deadline, or the
   * release — at its invocation when it may have applied (the message may be popped again before the
   * release's reply arrives), else at its return — or a remove that may have deleted the message while held.
   */
  readonly until: number;
  /** When it ended other than by its holder's ack (the lease deadline, a release, a remove); Infinity if never. */
  readonly lapsedAt: number;
}

/**
 * The delivery an ack, extend or release of `process` is about: its latest delivery to that process
 * that returned no later than the call was made.
 */
function deliveryOf(deliveries: readonly DeliverOp[], op: { process: string; invokedAt: number }): DeliverOp | undefined {
  let found: DeliverOp | undefined;
  for (const d of deliveries) {
    if (d.completedAt > op.invokedAt) break;
    if (d.process === op.process) found = d;
  }
  return found;
}

export function holdsOf(m: MessageOps): Hold[] {
  // Loops, not map and find with closures: this runs for every message of a history of millions.
  const holds: Hold[] = [];
  for (const d of m.deliveries) {
    if (m.keptBack.length > 0) keptBackBefore(m, holds, d.completedAt);
    let ack: AckOp | undefined;
    for (const a of m.acks) {
      if (deliveryOf(m.deliveries, a) === d) {
        ack = a;
        break;
      }
    }
    const ackEnd = ack?.completedAt ?? Infinity;
    let release: ReleaseOp | undefined;
    for (const r of m.releases) {
      if (deliveryOf(m.deliveries, r) === d && r.completedAt <= ackEnd) {
        release = r;
        break;
      }
    }
    const releaseEnd = release ? (mayHaveApplied(release) ? release.invokedAt : release.completedAt) : Infinity;
    let leaseEnd = d.leaseUntil;
    for (const e of m.extends) {
      if (e.outcome === 'ok' && deliveryOf(m.deliveries, e) === d && e.completedAt <= Math.min(leaseEnd, ackEnd, releaseEnd)) {
        leaseEnd = Math.max(leaseEnd, e.leaseUntil);
      }
    }
    const lapsedAt = Math.min(leaseEnd, releaseEnd, removedAt(m, d));
    holds.push({ d, leaseEnd, ack, release, until: Math.min(ackEndOf(m, d, ack), lapsedAt), lapsedAt });
  }
  if (m.keptBack.length > 0) keptBackBefore(m, holds, Infinity);
  return holds;
}

/**
 * Adds, in return order, the kept-back leases that returned before `t` and are not yet among `holds`:
 * nobody acks, releases or extends them; each lapses at its lease end, or at a remove.
 */
function keptBackBefore(m: MessageOps, holds: Hold[], t: number): void {
  let added = 0;
  for (const h of holds) if (h.d.type === 'kept-back') added++;
  for (let i = added; i < m.keptBack.length && m.keptBack[i]!.completedAt < t; i++) {
    const k = m.keptBack[i]!;
    const lapsedAt = Math.min(k.leaseUntil, removedAt(m, k));
    holds.push({ d: k, leaseEnd: k.leaseUntil, ack: undefined, release: undefined, until: lapsedAt, lapsedAt });
  }
}

/**
 * When the holder's ack ended the hold: at its return — or, when it may have applied and a push or
 * ensure may then have created the message anew, as early as that new life may have begun (the ack's
 * or that creation's invocation, whichever is later): the ack deleted the message somewhere between
 * its invocation and its reply, and another consumer may take the new life before the reply arrives.
 * A creation counts only when another one may have made the delivered life (it began before the
 * delivery returned): the one creation of a message cannot come after its own delivery.
 */
function ackEndOf(m: MessageOps, d: DeliverOp, ack: AckOp | undefined): number {
  if (!ack) return Infinity;
  let at = ack.completedAt;
  if (!mayHaveApplied(ack)) return at;
  for (const p of m.pushes) {
    if (!mayHaveCreated(p) || p.completedAt <= ack.invokedAt) continue;
    let earlierLife = false;
    for (const q of m.pushes) if (q !== p && mayHaveCreated(q) && q.invokedAt < d.completedAt) earlierLife = true;
    if (earlierLife) at = Math.min(at, Math.max(ack.invokedAt, p.invokedAt));
  }
  return at;
}

/**
 * A remove deletes the message with its lease (the reference models forget a leased entry too): the
 * holder's ack is then refused and a later ensure or push starts a new life that another consumer
 * may take. A remove that may have applied after the pop took the message (it returned after the pop
 * was invoked) ends the hold — as early as it may have applied, never before the delivery.
 */
function removedAt(m: MessageOps, d: DeliverOp | KeptBackOp): number {
  let at = Infinity;
  for (const r of m.removes) {
    if (mayHaveApplied(r) && r.completedAt > d.invokedAt) at = Math.min(at, Math.max(r.invokedAt, d.completedAt));
  }
  return at;
}
