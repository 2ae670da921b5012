import type { AllowedFinding } from './judging.js';

/** Duplicate (docs/CHECKER.md §2.6): delivered more than once. Reported, allowed by at-least-once. */
export const duplicate: AllowedFinding<'duplicate'> = {
  kinds: { duplicate: { label: 'duplicate (allowed by at-least-once)', rank: 14, why: 'reported, never a failure, so it comes last.' } },
  judgesUnpushed: true,
  judgeMessage: ({ m, found }) => {
    if (m.deliveries.length > 1) found('duplicate', m.deliveries[1]!.completedAt, m.deliveries.map((d) => d.process), `delivered ${m.deliveries.length} times`);
  },
};
