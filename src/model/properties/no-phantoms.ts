import { property } from './judging.js';

export const noPhantoms = property({
  name: 'noPhantoms',
  label: 'no phantoms',
  means: 'never delivers a message nobody pushed',
  exercisedWhen: 'a message was delivered',
  kinds: {
    unexpected: { label: 'unexpected', rank: 8, why: 'work nobody asked for — again one delivery at a time, so an idempotent consumer survives it.' },
  },
  brokenBy: '**unexpected**: delivered, never pushed (no push or ensure of the id, of any outcome)',
  judgesUnpushed: true,
  /** Unexpected: delivered, never pushed (no push or ensure of the id, of any outcome). */
  judgeMessage: ({ m, found, exercised }) => {
    if (m.deliveries.length > 0) exercised();
    if (m.pushes.length > 0) return;
    for (const d of m.deliveries) found('unexpected', d.completedAt, [d.process], 'delivered but never pushed');
  },
});
