import { judgeLate } from '../late.js';
import { property } from './judging.js';

export const deliveredPromptly = property({
  name: 'deliveredPromptly',
  label: 'delivered promptly',
  means: 'a pop never waits longer than the delivery bound while a message of its shard is free and due',
  exercisedWhen: 'a message was free and due while a consumer of its shard was waiting',
  kinds: {
    late: { label: 'late', rank: 13, why: 'slow while a consumer waited: a performance promise.' },
  },
  brokenBy: "**late**: a pop by the schedule waited longer than B (§2.4) while a message of its shard was free and due (§2.3); one consumer's back-to-back pops (each but the last empty, the next within 1 ms) are one wait, so short polls add up",
  judgeShard: ({ shard, s, waiting, boundMs, found, exercised }) => {
    const late = judgeLate(waiting, s.free, boundMs);
    if (late.exercised) exercised();
    for (const f of late.findings) {
      found('late', f.id, f.t, [...f.processes], `free and due on shard ${shard} while ${f.pops} pop(s) waited past the ${boundMs} ms bound (up to ${f.beyondMs.toFixed(0)} ms beyond it)`);
    }
  },
});
