import type { Fault } from '../../../sim/run/config.js';
import { anotherPrimaryNamed } from './another-primary.js';
import { zoneTarget, type RealMeans } from './real-means.js';

/** Which process of a zone: its node (Dynomite, or a Redis primary/replica), or the redis-server behind its Dynomite node. */
type Process = 'node' | 'backend';

/**
 * SIGKILL of a zone's process and its restart, empty or from its AOF. `losesData` says of a crash
 * whether it comes back empty, and is undefined for a restart.
 */
export function processCrash<F extends Fault & { readonly zone: string }>(which: Process, losesData: (f: F) => boolean | undefined): RealMeans<F> {
  const named = (zone: string) => (which === 'node' ? `node ${zone}` : `redis of ${zone}`);
  return {
    target: zoneTarget,
    start(w) {
      const crash = (zone: string) => (which === 'node' ? w.cluster.crashNode(zone) : w.cluster.crashBackend(zone));
      const restart = (zone: string, empty: boolean) => (which === 'node' ? w.cluster.restartNode(zone, { empty }) : w.cluster.restartBackend(zone, { empty }));
      /** Per zone down, whether it comes back empty. */
      const down = new Map<string, boolean>();
      return {
        async strike(f) {
          const loses = losesData(f);
          if (loses !== undefined) {
            if (down.has(f.zone)) return;
            down.set(f.zone, loses);
            await crash(f.zone);
            w.struck(f, w.now());
            w.log(`SIGKILL ${named(f.zone)}`);
            return;
          }
          const empty = down.get(f.zone);
          if (empty === undefined) return;
          down.delete(f.zone);
          await restart(f.zone, empty);
          w.struck(f, w.now());
          w.log(`restart ${named(f.zone)}${empty ? ' empty' : ' from its AOF'}`);
        },
        async healAll() {
          await Promise.all(
            [...down].map(async ([zone, empty]) => {
              // A primary still down is started once Sentinel has promoted a replica, as the simulator's
              // liveness heal does: started at once, a crash shortly before the heal would come back
              // within the failover delay, still the primary (empty: its replicas resync from it).
              if (which === 'node' && w.cluster.kind === 'primary-replica' && (await w.cluster.primaryZone()) === zone) {
                if (!(await anotherPrimaryNamed(w.cluster, zone))) w.log(`no replica promoted for ${zone}: restarted anyway`);
              }
              await restart(zone, empty);
              // When it answered again: a restart on a loaded machine takes seconds, the simulator's none.
              w.struck({ at: 0, kind: which === 'node' ? 'restart-node' : 'restart-backend', zone }, w.now());
              w.log(`restart ${named(zone)}${empty ? ' empty' : ' from its AOF'} (liveness)`);
            }),
          );
          down.clear();
        },
      };
    },
  };
}
