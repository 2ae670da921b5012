import type { Hold } from '../holds.js';
import { property } from './judging.js';

export const noDoublePop = property({
  name: 'noDoublePop',
  label: 'no double pop',
  means: 'never delivered to a consumer while another holder holds it',
  exercisedWhen: 'a lease ran out or was handed back while its holder was still in the run',
  kinds: {
    'double-pop': { label: 'double pop', rank: 6, why: 'work done twice *at once*: the exclusivity a consumer relies on (one holder per message) is gone, so side effects race.' },
  },
  brokenBy: '**double pop**: delivered while a delivery to *another* holder is still held (§2.1; the same consumer getting its message back is not one)',
  /** Double pop: delivered while a delivery to another holder is still held (docs/CHECKER.md §2.1). */
  judgeMessage: ({ holds, phases, found, exercised }) => {
    for (let i = 1; i < holds.length; i++) {
      const h2 = holds[i]!;
      // A lease a pop kept back is held by nobody: it neither pops nor holds.
      if (h2.d.type === 'kept-back') continue;
      // The first earlier hold of another holder still held when h2's pop returned.
      let h1: Hold | undefined;
      for (let k = 0; k < i && h1 === undefined; k++) if (holds[k]!.d.type !== 'kept-back' && holds[k]!.d.process !== h2.d.process && h2.d.completedAt < holds[k]!.until) h1 = holds[k];
      if (h1) {
        found(
          'double-pop',
          h2.d.completedAt,
          [h1.d.process, h2.d.process],
          `delivered to ${h2.d.process} at ${h2.d.completedAt} while ${h1.d.process} held it (popped at ${h1.d.completedAt}, held until ${h1.until})`,
        );
      }
    }
    for (const h of holds) {
      if (h.d.type !== 'kept-back' && h.lapsedAt < (h.ack?.completedAt ?? Infinity) && h.lapsedAt < phases.end) {
        exercised();
        break;
      }
    }
  },
});
