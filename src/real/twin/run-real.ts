import { checkHistory, type CheckReport } from '../../model/checker.js';
import type { HistoryOp } from '../../model/history.js';
import { checkerSettings } from '../../sim/settings/checker-settings.js';
import type { Fault, SimConfig } from '../../sim/run/config.js';
import { configProblems } from '../../sim/run/config-problems.js';
import { HistoryRecorder } from '../../sim/workloads/history-recorder.js';
import { compareDumps, type ReplicaComparison } from '../../sim/store/replica-comparison.js';
import { Rng } from '../../sim/kernel/rng.js';
import { Trace } from '../../sim/kernel/trace.js';
import { SENTINEL_FAILOVER_TIMEOUT_MS } from '../../sim/topology/primary-replica.js';
import { resolveProfile, startWorkload, type WorkloadContext } from '../../sim/workloads/index.js';
import type { RealCluster } from '../cluster.js';
import { RealActor } from './real-actor.js';
import { RealFaults, realTwinProblems } from './faults/index.js';
import { realTime } from './real-time.js';
import { RealTwinError } from './real-twin-error.js';
import { startRealCluster } from '../start-cluster.js';
import { peerLinkDelays } from './peer-link-delays.js';
import type { PeerLinks } from './peer-links.js';

/** A fault as it struck a real twin: when (ms after the start) and whether its real means worked. */
interface StruckRealFault {
  readonly at: number;
  readonly fault: Fault;
  readonly error?: string;
}

/** Faults a supervisor ends after `durationMs` (process-crash, process-crash-failover). */
const SUPERVISED_KINDS: ReadonlySet<string> = new Set(['kill-process', 'kill-process-past-failover']);
type LivenessHeal = NonNullable<SimConfig['phases']['livenessHeals']>[number];

/**
 * The configuration of a real run with its schedule as it really happened (HappenedSchedule): what the
 * simulator must run to compare with that run seed by seed. A restart that answered only after the
 * safety phase (a liveness restart, or a scheduled one that finished late) is a liveness heal at its
 * real time, so the re-simulation keeps that process down as long as it really was down; any other
 * fault that took effect after the phase ended is re-simulated at the phase's last millisecond (a
 * simulated fault must strike inside it).
 */
export function asHappened(result: Pick<RealResult, 'config' | 'happened'>): SimConfig {
  const safety = result.config.phases.safetyMs;
  const last = safety - 1;
  const faults: Fault[] = [];
  const heals: LivenessHeal[] = [];
  for (const f of result.happened) {
    if ((f.kind === 'restart-node' || f.kind === 'restart-backend') && f.at >= safety) {
      heals.push({ at: f.at, zone: f.zone, process: f.kind === 'restart-node' ? 'node' : 'backend' });
      continue;
    }
    if (SUPERVISED_KINDS.has(f.kind) && 'durationMs' in f && 'zone' in f && f.at + f.durationMs >= safety) {
      heals.push({ at: f.at + f.durationMs, zone: f.zone, process: 'node' });
      faults.push(f.at > last ? { ...f, at: last, durationMs: f.at + f.durationMs - last } : f);
      continue;
    }
    faults.push(f.at > last ? { ...f, at: last } : f);
  }
  const phases = heals.length > 0 ? { ...result.config.phases, livenessHeals: heals } : result.config.phases;
  return { ...result.config, faults, phases };
}


/** How often the log asks Sentinel which node is primary. */
const PRIMARY_WATCH_MS = 100;

/** Notes in the run's log each time Sentinel names another primary (when a failover really ended); returns its stop. */
function watchPrimary(cluster: RealCluster, note: (line: string) => void): () => void {
  let named: string | null | undefined;
  let asking = false;
  const timer = setInterval(() => {
    if (asking) return;
    asking = true;
    void cluster
      .primaryZone()
      .then((zone) => {
        if (named !== undefined && zone !== named) note(zone === null ? 'Sentinel names no primary' : `Sentinel names ${zone} primary`);
        named = zone;
      }, () => undefined)
      .finally(() => (asking = false));
  }, PRIMARY_WATCH_MS);
  return () => clearInterval(timer);
}

/** A real twin's result: the same report as a simulated run's, from the same checker. */
export interface RealResult {
  readonly config: SimConfig;
  readonly report: CheckReport;
  readonly history: readonly HistoryOp[];
  readonly faults: readonly StruckRealFault[];
  /** The schedule as it really happened: each fault at the time it took effect, durations as they lasted. */
  readonly happened: readonly Fault[];
  /** Dynomite only: whether every replica's redis holds the same keys once the run ended. */
  readonly replicas: ReplicaComparison | null;
  readonly calls: Readonly<Record<string, number>>;
  /** When the liveness phase began and the run ended (system clock ms): the checker's phases. */
  readonly livenessStart: number;
  readonly end: number;
  /** Wall-clock ms the workload ran (safety and liveness phases). */
  readonly realMs: number;
  /** What was done to the processes, in order (`+ms action`). */
  readonly log: readonly string[];
  /** Dynomite only: the network its peer links ran (RealRunOptions.peerLinks); null on primary-replica. */
  readonly peerLinks: PeerLinks | null;
}

interface RealRunOptions {
  /** Called with each line of the run's log as it happens. */
  readonly onLog?: (line: string) => void;
  /**
   * The network of a Dynomite's peer links: `configured` (the default) — the configuration's latency
   * and replication lag added in the link proxies (peer-link-delays.ts), so the real nodes replicate
   * as slowly as the simulated ones — or `loopback`, the links as they are (well under 1 ms).
   */
  readonly peerLinks?: PeerLinks;
}

/** How long replication in flight may take to land before the replicas are compared. */
const REPLICATION_SETTLE_MS = 1_000;
const POLL_MS = 20;

function until(deadline: number, done: () => boolean): Promise<void> {
  return new Promise((resolve) => {
    const tick = () => (Date.now() >= deadline || done() ? resolve() : setTimeout(tick, POLL_MS));
    tick();
  });
}


/**
 * The real twin of a simulated run: the same configuration (topology, queue options, workload
 * profile, fault schedule, phases) on real processes on loopback, in real time. The same workload
 * drivers make the same recorded calls through the same queue, the faults strike at their times by
 * real means (SIGKILL, restart with or without the AOF, SIGSTOP/SIGCONT, a client's connections
 * closed or moved to another Dynomite node, a client clock set off, Dynomite peer-link bytes held in
 * proxies), and the same checker judges the history. What a real run cannot do (a partition on
 * primary-replica, a lag spike, a store node's clock) is refused with a
 * RealTwinError before anything starts. Not deterministic: the seed fixes the workload's choices
 * and the fault schedule, not the timing.
 */
export async function runReal(config: SimConfig, options: RealRunOptions = {}): Promise<RealResult> {
  const peerLinks = options.peerLinks ?? 'configured';
  const problems = [...configProblems(config), ...realTwinProblems(config, peerLinks)];
  if (problems.length > 0) throw new RealTwinError(problems);
  const t = config.topology;
  const cluster: RealCluster = await startRealCluster(
    t.kind === 'dynomite'
      ? {
          kind: 'dynomite',
          zones: t.zones,
          quorumConsistency: t.quorumConsistency,
          nonQuorumConsistency: t.nonQuorumConsistency,
          ...(peerLinks === 'configured' ? { peerLinkDelays: peerLinkDelays(config.seed, config.network) } : {}),
        }
      : {
          kind: 'primary-replica',
          zones: t.zones,
          failoverDelayMs: t.failoverDelayMs,
          // The simulator's Sentinel fails and retries a failover on this timeout too.
          failoverTimeoutMs: SENTINEL_FAILOVER_TIMEOUT_MS,
          appendfsync: t.persistence === 'aof-everysec' ? 'everysec' : 'always',
          ...(t.fullSyncDelayMs !== undefined ? { fullSyncDelayMs: t.fullSyncDelayMs } : {}),
        },
  );
  const actors = new Map<string, RealActor>();
  let stopWatching = (): void => undefined;
  try {
    const start = Date.now();
    const log: string[] = [];
    const note = (line: string) => {
      const entry = `+${Date.now() - start}ms ${line}`;
      log.push(entry);
      options.onLog?.(entry);
    };
    const trace = new Trace('count');
    const recorder = new HistoryRecorder(realTime, trace);
    const profile = resolveProfile(config.workload);
    const outstanding = new Set<string>();
    let finished = false;
    const safetyEnd = start + config.phases.safetyMs;
    const ctx: WorkloadContext = { config, profile, time: realTime, trace, recorder, safetyEnd, outstanding, pushedIds: [], races: new Map(), finished: () => finished };
    const spawn = (name: string, zone: string, runsReaper: boolean) => {
      const actor = new RealActor(name, zone, config, cluster, runsReaper, (err) => note(`${name} reaper error: ${err instanceof Error ? err.message : String(err)}`));
      actor.onCrash = () => recorder.crashed(name);
      actors.set(name, actor);
      return actor;
    };
    const realFaults = new RealFaults({ cluster, config, actor: (n) => actors.get(n), actors: () => actors.values(), log: note, now: () => Date.now() - start });
    const struck: StruckRealFault[] = [];
    const pending: Promise<void>[] = [];
    // Per target, the last fault started on it: the next one waits for it (a restart still running).
    const busy = new Map<string, Promise<void>>();
    const timers = config.faults.map((fault) =>
      setTimeout(() => {
        const target = realFaults.target(fault);
        const done = (busy.get(target) ?? Promise.resolve())
          .then(() => realFaults.strike(fault))
          .then(
            () => void struck.push({ at: Date.now() - start, fault }),
            (err: unknown) => void struck.push({ at: Date.now() - start, fault, error: err instanceof Error ? err.message : String(err) }),
          );
        busy.set(target, done);
        pending.push(done);
      }, fault.at),
    );
    const workload = startWorkload(ctx, spawn, new Rng(config.seed));
    if (cluster.kind === 'primary-replica') stopWatching = watchPrimary(cluster, note);
    await until(safetyEnd, () => false);
    for (const timer of timers) clearTimeout(timer);
    await Promise.all(pending);
    const livenessStart = Date.now();
    note('liveness: every fault healed');
    await realFaults.healAll();
    workload.replaceCrashedConsumers();
    await until(livenessStart + config.phases.livenessMs, () => workload.busy() <= 0 && outstanding.size === 0);
    finished = true;
    stopWatching();
    recorder.seal();
    const end = Date.now();
    for (const a of actors.values()) a.crash();
    const report = checkHistory(recorder.history, { livenessStart, end, stopped: recorder.stops }, checkerSettings(config));
    let replicas: ReplicaComparison | null = null;
    if (cluster.kind === 'dynomite') {
      await until(Date.now() + REPLICATION_SETTLE_MS, () => false);
      replicas = compareDumps(await cluster.dumps(''));
    }
    const calls: Record<string, number> = {};
    for (const a of actors.values()) for (const [m, n] of a.calls) calls[m] = (calls[m] ?? 0) + n;
    return { config, report, history: recorder.history, faults: struck, happened: realFaults.happened.list(), replicas, calls, livenessStart, end, realMs: end - start, log, peerLinks: t.kind === 'dynomite' ? peerLinks : null };
  } finally {
    stopWatching();
    for (const a of actors.values()) a.crash();
    await cluster.stop();
  }
}
