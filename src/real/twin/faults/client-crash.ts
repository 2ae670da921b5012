import type { FaultOfFamily } from '../../../sim/faults/index.js';
import type { RealMeans } from './real-means.js';

/** A client's timers stopped and its connections closed (the run replaces crashed consumers at the liveness phase). */
export const clientCrash: RealMeans<FaultOfFamily<'client-crash'>> = {
  target: (f) => `client:${f.actor}`,
  start(w) {
    return {
      async strike(f) {
        w.actor(f.actor)?.crash();
        w.struck(f, w.now());
        w.log(`crash client ${f.actor}`);
      },
      async healAll() {},
    };
  },
};
