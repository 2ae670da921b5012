import type { FaultOfFamily } from '../../../sim/faults/index.js';
import type { RealMeans } from './real-means.js';

const isClient = (name: string) => /^(producer|consumer|operator)/.test(name);

/** A client's clock set off or jumped (its offset over the system clock); true again at the liveness phase. */
export const clock: RealMeans<FaultOfFamily<'clock'>> = {
  target: (f) => `client:${f.target}`,
  problem: (f) => (isClient(f.target) ? undefined : `fault ${f.kind} of ${f.target}: a store node's clock cannot be set off on a real process here (client clocks can)`),
  start(w) {
    return {
      async strike(f) {
        const a = w.actor(f.target);
        if (a) a.clock.offset = f.kind === 'clock-skew' ? f.offsetMs : a.clock.offset + f.deltaMs;
        w.struck(f, w.now());
      },
      async healAll() {
        for (const a of w.actors()) a.clock.offset = 0;
      },
    };
  },
};
