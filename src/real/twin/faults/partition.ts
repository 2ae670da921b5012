import type { FaultOfFamily } from '../../../sim/faults/index.js';
import type { RealMeans } from './real-means.js';

/** A partition in effect, with the timer that heals it and what records its real duration. */
interface RealPartition {
  readonly from: string;
  readonly to: string;
  readonly timer: NodeJS.Timeout;
  readonly since: number;
  readonly healed: (durationMs: number) => void;
}

/** Dynomite's peer-link bytes held in the proxies between two zones for the fault's duration. */
export const partition: RealMeans<FaultOfFamily<'partition'>> = {
  target: (f) => `partition:${f.from}/${f.to}`,
  problem: (f, config) =>
    config.topology.kind === 'dynomite'
      ? undefined
      : `fault partition at ${f.at} ms: only Dynomite's peer links go through proxies here; primary-replica clients and replication cross zones through Sentinel, not built`,
  start(w) {
    const partitions = new Set<RealPartition>();
    return {
      async strike(f) {
        w.cluster.partition(f.from, f.to, f.oneWay);
        const since = w.now();
        const healed = w.struck(f, since);
        const label = `${f.from}${f.oneWay ? '→' : '↔'}${f.to}`;
        w.log(`partition ${label} for ${f.durationMs} ms (peer-link bytes held in the proxies)`);
        const p: RealPartition = {
          from: f.from,
          to: f.to,
          since,
          healed,
          timer: setTimeout(() => {
            partitions.delete(p);
            w.cluster.heal(f.from, f.to);
            healed(w.now() - since);
            w.log(`heal partition ${label}`);
          }, f.durationMs),
        };
        partitions.add(p);
      },
      async healAll() {
        for (const p of partitions) {
          clearTimeout(p.timer);
          w.cluster.heal(p.from, p.to);
          p.healed(w.now() - p.since);
          w.log(`heal partition ${p.from}/${p.to} (liveness)`);
        }
        partitions.clear();
      },
    };
  },
};
