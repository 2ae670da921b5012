import type { FaultOfFamily } from '../../../sim/faults/index.js';
import type { RealMeans } from './real-means.js';

/** A client's connections moved to another zone's Dynomite node; home again at the liveness phase. */
export const clientFailover: RealMeans<FaultOfFamily<'client-failover'>> = {
  target: (f) => `client:${f.actor}`,
  start(w) {
    const moved = new Set<string>();
    return {
      async strike(f) {
        const a = w.actor(f.actor);
        if (!a || a.crashed) return;
        a.failOver(w.cluster.nodeAddress(f.toZone));
        moved.add(f.actor);
        w.struck(f, w.now());
        w.log(`client ${f.actor} fails over to ${f.toZone}`);
      },
      async healAll() {
        // Back to its own zone's node, as the simulator's liveness phase moves every connection home.
        for (const a of w.actors()) if (moved.has(a.name)) a.failOver(w.cluster.nodeAddress(a.zone));
        moved.clear();
      },
    };
  },
};
