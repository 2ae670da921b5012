import type { FaultOfFamily } from '../../../sim/faults/index.js';
import type { RealMeans } from './real-means.js';

/**
 * A client stalls (GC-like) for the fault's duration: its timers and the replies to its calls wait
 * until the pause ends (RealActor.pause), as in the simulation; what it sent before runs on the server.
 */
export const clientPause: RealMeans<FaultOfFamily<'client-pause'>> = {
  target: (f) => `client:${f.actor}`,
  start(w) {
    return {
      async strike(f) {
        const actor = w.actor(f.actor);
        if (!actor || actor.crashed) return;
        const at = w.now();
        actor.pause(Date.now() + f.durationMs);
        w.struck(f, at);
        w.log(`pause client ${f.actor} for ${f.durationMs} ms`);
      },
      async healAll() {
        for (const a of w.actors()) a.timers.resume();
      },
    };
  },
};
