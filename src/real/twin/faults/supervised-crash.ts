import type { FaultOfFamily } from '../../../sim/faults/index.js';
import { diskKeeps } from '../../../sim/settings/persistence.js';
import { until } from '../../processes/until.js';
import { anotherPrimaryNamed, PROMOTION_WAIT_MS } from './another-primary.js';
import { zoneTarget, type RealMeans } from './real-means.js';

type SupervisedFault = FaultOfFamily<'process-crash'> | FaultOfFamily<'process-crash-failover'>;

/** A killed node waiting for its supervisor: when it died, its restart timer, and what records its real downtime. */
interface Down {
  readonly since: number;
  readonly empty: boolean;
  timer: NodeJS.Timeout | null;
  readonly healed: (durationMs: number) => void;
}

/**
 * SIGKILL of a zone's redis-server (Dynomite: its node and redis) and, `durationMs` later, its start
 * by a supervisor: from its AOF (appendfsync as topology.persistence says), or with its data files
 * removed when the set-up has no persistence. A supervisor that asks Sentinel starts it as a replica
 * of the primary Sentinel names when that is another node (what the simulation's restart does; left to
 * Sentinel, an old primary serves as a primary for ~8 s first). Under topology.keepEmptyPrimaryDown, a
 * node with nothing on disk that Sentinel still names primary is started only once Sentinel names
 * another. At the liveness start a killed replica is started at once, a killed primary at its own
 * time or once Sentinel names another (whichever comes first), as the simulator heals them.
 */
export const supervisedCrash: RealMeans<SupervisedFault> = {
  target: zoneTarget,
  start(w) {
    const down = new Map<string, Down>();
    const start = async (zone: string, d: Down, liveness: boolean) => {
      const keepDown = w.config.topology.keepEmptyPrimaryDown && d.empty && (await w.cluster.primaryZone()) === zone;
      if (keepDown) {
        w.log(`supervisor keeps ${zone} down (empty, still Sentinel's primary) until a replica is promoted`);
        const promoted = await anotherPrimaryNamed(w.cluster, zone);
        if (!promoted) w.log(`no replica promoted within ${PROMOTION_WAIT_MS} ms: the supervisor starts ${zone} anyway`);
      }
      const primary = await w.cluster.primaryZone();
      const asReplica = primary !== null && primary !== zone;
      await w.cluster.restartNode(zone, { empty: d.empty, asReplica });
      down.delete(zone);
      d.healed(w.now() - d.since);
      w.log(`supervisor starts ${zone}${d.empty ? ' empty' : ' from its AOF'}${asReplica ? ` as a replica of ${primary}` : ''}${liveness ? ' (liveness)' : ''}`);
    };
    return {
      async strike(f) {
        if (down.has(f.zone)) return;
        const empty = diskKeeps(w.config.topology.persistence ?? 'none', 'process-killed') === 'nothing';
        await w.cluster.crashNode(f.zone);
        const since = w.now();
        const d: Down = { since, empty, timer: null, healed: w.struck(f, since) };
        down.set(f.zone, d);
        w.log(`SIGKILL ${f.zone}; its supervisor starts it in ${f.durationMs} ms`);
        d.timer = setTimeout(() => {
          d.timer = null;
          void start(f.zone, d, false).catch((err: unknown) => w.log(`supervisor could not start ${f.zone}: ${err instanceof Error ? err.message : String(err)}`));
        }, f.durationMs);
      },
      async healAll() {
        const started = (zone: string) => until(`${zone} started by its supervisor`, PROMOTION_WAIT_MS + 10_000, () => Promise.resolve(!down.has(zone)), 100);
        await Promise.all(
          [...down].map(async ([zone, d]) => {
            // A start already under way finishes by itself.
            if (d.timer === null) return started(zone);
            // A primary still down is left to Sentinel, as the simulator's liveness does: its
            // supervisor starts it at its own time or once Sentinel names another, whichever comes
            // first. Started at once, a crash drawn past the failover delay would end before it and
            // come back as the primary (empty without persistence, its replicas resyncing from it).
            if ((await w.cluster.primaryZone()) === zone) {
              await anotherPrimaryNamed(w.cluster, zone, () => d.timer === null);
              if (d.timer === null) return started(zone);
            }
            clearTimeout(d.timer);
            return start(zone, d, true);
          }),
        );
      },
    };
  },
};
