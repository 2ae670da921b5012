import type { AckOp, RemoveOp } from '../history.js';
import { mayHaveCreated } from '../message-ops.js';
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
    // Loops, not filter and spread: this runs for every message of a history of millions.
    const finals: (AckOp | RemoveOp)[] = [];
    for (const a of m.acks) if (a.outcome === 'ok') finals.push(a);
    for (const r of m.removes) if (r.outcome === 'ok') finals.push(r);
    if (finals.length === 0) return;
    const lateAck = holds.some((h) => h.ack?.outcome === 'ok' && h.ack.completedAt > h.leaseEnd);
    if (m.removes.some((r) => r.outcome === 'ok') || m.deliveries.length > 1 || lateAck) exercised();
    for (const d of m.deliveries) {
      const final = finals.find((a) => a.completedAt < d.invokedAt && !m.pushes.some((p) => mayHaveCreated(p) && p.completedAt >= a.invokedAt && p.invokedAt < d.completedAt));
      if (final) found('resurrection', d.completedAt, [d.process], `delivered at ${d.completedAt} after ${final.type === 'ack' ? 'an ack' : 'a remove'} returned at ${final.completedAt}`);
    }
  },
});
