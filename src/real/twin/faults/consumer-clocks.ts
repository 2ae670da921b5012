import type { FaultOfFamily } from '../../../sim/faults/index.js';
import type { RealMeans } from './real-means.js';

/** Every consumer's clock set off by the same offset; true again at the liveness phase. */
export const consumerClocks: RealMeans<FaultOfFamily<'consumer-clocks'>> = {
  target: (f) => `fault:${f.kind}`,
  start(w) {
    return {
      async strike(f) {
        for (const a of w.actors()) if (a.name.startsWith('consumer-')) a.clock.offset = f.offsetMs;
        w.struck(f, w.now());
      },
      async healAll() {
        for (const a of w.actors()) a.clock.offset = 0;
      },
    };
  },
};
