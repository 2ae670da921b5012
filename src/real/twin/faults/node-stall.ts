import type { FaultOfFamily } from '../../../sim/faults/index.js';
import { zoneTarget, type RealMeans } from './real-means.js';

/** A paused process's resume timer, when it was paused and what records its real duration. */
interface RealPause {
  readonly zone: string;
  readonly which: 'node' | 'backend';
  readonly timer: NodeJS.Timeout;
  readonly since: number;
  readonly healed: (durationMs: number) => void;
}

/** SIGSTOP of a zone's node or redis-server, SIGCONT after the fault's duration. */
export const nodeStall: RealMeans<FaultOfFamily<'node-stall'>> = {
  target: zoneTarget,
  start(w) {
    const paused = new Map<string, RealPause>();
    return {
      async strike(f) {
        const which = f.kind === 'stall-node' ? 'node' : 'backend';
        const key = `${which}:${f.zone}`;
        if (paused.has(key)) return;
        w.cluster.pause(f.zone, which);
        const since = w.now();
        const healed = w.struck(f, since);
        w.log(`SIGSTOP ${which} ${f.zone} for ${f.durationMs} ms`);
        paused.set(key, {
          zone: f.zone,
          which,
          since,
          healed,
          timer: setTimeout(() => {
            paused.delete(key);
            w.cluster.resume(f.zone, which);
            healed(w.now() - since);
            w.log(`SIGCONT ${which} ${f.zone}`);
          }, f.durationMs),
        });
      },
      async healAll() {
        for (const pause of paused.values()) {
          clearTimeout(pause.timer);
          w.cluster.resume(pause.zone, pause.which);
          pause.healed(w.now() - pause.since);
          w.log(`SIGCONT ${pause.which} ${pause.zone} (liveness)`);
        }
        paused.clear();
      },
    };
  },
};
