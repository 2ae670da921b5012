import type { AckOp, DeliverOp, RemoveOp } from '../history.js';
import { mayHaveCreated, type MessageOps } from '../message-ops.js';
import { property } from './judging.js';

export const acksAreFinal = property({
  name: 'acksAreFinal',
  label: 'acks are final',
  means: 'never delivered again after an ack or remove returned ok, unless pushed again',
  exercisedWhen: 'a message was acked or removed (ok) while the queue still had a way to deliver it (removed, delivered twice, or acked after its lease ran out)',
  kinds: {
    resurrection: { label: 'resurrection', rank: 7, why: 'work done again after it was declared final (acked or removed) — but one delivery at a time, so an idempotent consumer survives it; a double pop it may not.' },
  },
  brokenBy: '**resurrection**: delivered after an ack or a remove returned ok, with no push or ensure that may have landed in between',
  /**
   * Resurrection: a delivery whose pop was invoked after an ack or remove of it returned ok, with no
   * push or ensure of it that may have landed in between.
   */
  judgeMessage: ({ m, holds, found, exercised }) => {
    // Loops, no arrays or closures: this runs for every message of a history of millions.
    if (!hasOk(m.acks) && !hasOk(m.removes)) return;
    let lateAck = false;
    for (const h of holds) if (h.ack?.outcome === 'ok' && h.ack.completedAt > h.leaseEnd) lateAck = true;
    if (hasOk(m.removes) || m.deliveries.length > 1 || lateAck) exercised();
    for (const d of m.deliveries) {
      // The first final one (ok acks, then ok removes) that returned before the pop began, with no creation that may have landed in between.
      const final = finalBefore(m, m.acks, d) ?? finalBefore(m, m.removes, d);
      if (final) found('resurrection', d.completedAt, [d.process], `delivered at ${d.completedAt} after ${final.type === 'ack' ? 'an ack' : 'a remove'} returned at ${final.completedAt}`);
    }
  },
});

function hasOk(ops: readonly (AckOp | RemoveOp)[]): boolean {
  for (const y of ops) if (y.outcome === 'ok') return true;
  return false;
}

/** The first ok operation of `finals` that returned before `d`'s pop was invoked, with no push or ensure of the message that may have landed in between. */
function finalBefore(m: MessageOps, finals: readonly (AckOp | RemoveOp)[], d: DeliverOp): AckOp | RemoveOp | undefined {
  for (const a of finals) {
    if (a.outcome !== 'ok' || a.completedAt >= d.invokedAt) continue;
    let createdAgain = false;
    for (const p of m.pushes) if (mayHaveCreated(p) && p.completedAt >= a.invokedAt && p.invokedAt < d.completedAt) createdAgain = true;
    if (!createdAgain) return a;
  }
  return undefined;
}
