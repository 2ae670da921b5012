import { checkHistory, reportOfStoppedRun, type CheckReport } from '../../model/checker.js';
import type { HistoryOp } from '../../model/history.js';
import { SimActor } from './actor.js';
import type { Fault, SimConfig } from './config.js';
import { applyFault, Exposure, familyOf, healAllFaults, type FaultFamily, type FaultWorld } from '../faults/index.js';
import { configProblems } from './config-problems.js';
import type { RaceName } from '../workloads/race-names.js';
import { HistoryRecorder } from '../workloads/history-recorder.js';
import { checkerSettings } from '../settings/checker-settings.js';
import { resolveProfile, startWorkload, type WorkloadContext } from '../workloads/index.js';
import { SIM_EPOCH, SimWorld } from './world.js';
import { SimConfigError } from '../settings/sim-config-error.js';
import { compareDumps, type ReplicaComparison } from '../store/replica-comparison.js';
import type { KernelStop, WallDeadline } from '../kernel/kernel.js';
import { TimeBudgetReachedError } from './time-budget.js';
import { keepDownUntilHealed } from './liveness-heals.js';

export { SIM_EPOCH } from './world.js';
export { SimConfigError } from '../settings/sim-config-error.js';


/** One fault as it struck: when, its family, and what it changed. */
export interface StruckFault {
  readonly t: number;
  readonly fault: Fault;
  readonly family: FaultFamily;
  readonly exposure: ReturnType<Exposure['toJSON']>;
}

export interface SimResult {
  readonly config: SimConfig;
  readonly report: CheckReport;
  readonly history: readonly HistoryOp[];
  readonly faults: readonly StruckFault[];
  /** Whether any fault changed something (a run whose faults all missed is no evidence about them). */
  readonly exposed: boolean;
  readonly traceHash: string;
  readonly traceText: string | null;
  readonly traceEvents: number;
  readonly kernelEvents: number;
  /** Simulated milliseconds the run covered. */
  readonly simulatedMs: number;
  readonly livenessStart: number;
  /**
   * Dynomite only (null elsewhere): whether every replica holds the same queue keys once the run
   * ended and the replication still in flight landed; the keys that differ. Checked, not assumed.
   */
  readonly replicas: ReplicaComparison | null;
  /** Public queue methods the workload called, with how often (docs/CHECKER.md §1.1: what the run exercised). */
  readonly calls: Readonly<Record<string, number>>;
  /** How often the racers made each race (src/sim/workloads/race.ts); empty where the profile has no racers. */
  readonly races: Readonly<Partial<Record<RaceName, number>>>;
  /** Why the run stopped before its end (a script or the run past its budget, a twin unlike its Lua); null: it ran to its end. */
  readonly stopped: KernelStop | null;
}

function callsOf(actors: Iterable<SimActor>): Record<string, number> {
  const calls: Record<string, number> = {};
  for (const a of actors) for (const [m, n] of a.calls) calls[m] = (calls[m] ?? 0) + n;
  return Object.fromEntries(Object.entries(calls).sort(([a], [b]) => (a < b ? -1 : 1)));
}

/** A run whose trace was only counted (`runSimulation(config, { traceHash: false })`): no hash, no lines. */
export type UnhashedSimResult = Omit<SimResult, 'traceHash' | 'traceText'> & { readonly traceHash: null; readonly traceText: null };

export interface RunOptions {
  /**
   * Hash the trace (default true). False: the run only counts its trace events, for callers that read
   * the verdict and never the hash (the guarantees table); the run itself is the same, event for event.
   * Not with `keepTrace`.
   */
  readonly traceHash?: boolean;
  /**
   * A wall-clock deadline (explore --time), read between events: past it the run stops and
   * runSimulation throws a TimeBudgetReachedError instead of returning a verdict.
   */
  readonly wallDeadline?: WallDeadline;
}


/** Longest a replicated write can still be in flight once the clients stopped (spikes included). */
const REPLICATION_DRAIN_MS = 60_000;

/** Compares every replica's keyspace, key by key. */
export function compareReplicas(world: SimWorld): ReplicaComparison {
  return compareDumps(world.topology.nodes.map((n) => n.keyspace.dump()));
}

/**
 * One deterministic run: producers, consumers (each running the real queue, with its reaper) and a
 * fault schedule on a simulated topology; a safety phase with faults, then a liveness phase with
 * every fault healed, until every acknowledged push is acked or the liveness bound passes.
 */
export async function runSimulation(config: SimConfig, options?: RunOptions & { readonly traceHash?: true }): Promise<SimResult>;
export async function runSimulation(config: SimConfig, options: RunOptions & { readonly traceHash: false }): Promise<UnhashedSimResult>;
export async function runSimulation(config: SimConfig, options?: RunOptions): Promise<SimResult | UnhashedSimResult>;
export async function runSimulation(config: SimConfig, options?: RunOptions): Promise<SimResult | UnhashedSimResult> {
  const optionsValid = options === undefined || (typeof options === 'object' && options !== null && !Array.isArray(options));
  const traceHashOption: unknown = optionsValid ? options?.traceHash : undefined;
  const hashed = traceHashOption !== false;
  const problems = configProblems(config);
  if (!optionsValid) problems.push(`run options must be an object ({ traceHash }), not ${JSON.stringify(options)}`);
  const deadline: unknown = optionsValid ? options?.wallDeadline : undefined;
  if (deadline !== undefined && (typeof deadline !== 'object' || deadline === null || typeof (deadline as WallDeadline).now !== 'function' || typeof (deadline as WallDeadline).at !== 'number')) {
    problems.push('run option wallDeadline must be { now: () => number, at: number }');
  }
  if (traceHashOption !== undefined && typeof traceHashOption !== 'boolean') problems.push(`run option traceHash must be true or false, not ${JSON.stringify(traceHashOption)}`);
  if (!hashed && config.keepTrace) problems.push('keepTrace needs the trace hashed: traceHash false keeps no lines');
  if (problems.length > 0) throw new SimConfigError(problems);
  const world = new SimWorld(config, hashed ? undefined : 'count');
  const { kernel, trace, rng } = world;
  if (deadline !== undefined) kernel.wallDeadline = deadline as WallDeadline;
  const recorder = new HistoryRecorder(kernel, trace, world.observations);
  const w = config.workload;
  const profile = resolveProfile(w);
  const outstanding = new Set<string>();
  // An ack found applied after it returned a refusal discharges its message, as the checker counts it.
  recorder.onReclassified = (ops) => {
    for (const op of ops) if (op.type === 'ack') outstanding.delete(op.id);
  };
  const actors = new Map<string, SimActor>();
  const spawn = (name: string, zone: string, reaper: boolean) => {
    const actor = new SimActor(name, zone, world, reaper);
    actor.onCrash = () => recorder.crashed(name);
    actors.set(name, actor);
    return actor;
  };
  // How scripts ran is not part of the run: every mode gives the same trace.
  const { scripts: _scripts, ...traced } = config;
  trace.record({ t: kernel.now, actor: 'sim', op: 'start', args: { seed: config.seed, config: { ...traced, keepTrace: false } } });
  const safetyEnd = kernel.now + config.phases.safetyMs;
  let finished = false;
  const ctx: WorkloadContext = { config, profile, time: kernel, trace, recorder, safetyEnd, outstanding, pushedIds: [], races: new Map(), finished: () => finished };

  const workload = startWorkload(ctx, spawn, rng);

  const faultWorld: FaultWorld = {
    kernel,
    network: world.network,
    topology: world.topology,
    trace,
    observations: world.observations,
    config,
    actor: (n) => actors.get(n),
    actors: () => actors.values(),
    heldBy: (a) => recorder.heldBy(a),
    inFlight: (a) => recorder.inFlightCount(a),
  };
  const struck: { t: number; fault: Fault; exposure: Exposure }[] = [];
  for (const fault of config.faults) {
    kernel.at(SIM_EPOCH + fault.at, () => struck.push({ t: kernel.now, fault, exposure: applyFault(faultWorld, fault) }));
  }

  await kernel.runUntil(safetyEnd);

  // Liveness: every fault family heals what it still has in effect; crashed consumers are replaced.
  const livenessStart = kernel.now;
  if (kernel.stopped === null) {
    keepDownUntilHealed(kernel, trace, world.topology, config.phases.livenessHeals ?? [], SIM_EPOCH);
    healAllFaults(faultWorld);
    workload.replaceCrashedConsumers();
    trace.record({ t: kernel.now, actor: 'sim', op: 'liveness', args: { livenessStart } });
    const end = livenessStart + config.phases.livenessMs;
    await kernel.runUntil(end, () => workload.busy() <= 0 && outstanding.size === 0);
  }
  const stopped = kernel.stopped;
  if (stopped?.kind === 'time-budget') throw new TimeBudgetReachedError();
  if (stopped) trace.record({ t: kernel.now, actor: 'sim', op: 'stopped', args: { kind: stopped.kind, detail: stopped.detail } });
  finished = true;
  recorder.seal();
  const endedAt = kernel.now;
  for (const a of actors.values()) a.crash();
  for (const s of struck) s.exposure.finish();
  const faults: StruckFault[] = struck.map((s) => ({ t: s.t, fault: s.fault, family: familyOf(s.fault.kind), exposure: s.exposure.toJSON() }));
  faults.forEach((f, index) => trace.record({ t: endedAt, actor: 'nemesis', op: 'exposure', args: { index, family: f.family, exposure: f.exposure } }));
  trace.record({ t: endedAt, actor: 'sim', op: 'end', args: { outstanding: outstanding.size } });

  const judged = checkHistory(recorder.history, { livenessStart, end: endedAt, stopped: recorder.stops }, checkerSettings(config));
  const compared = config.scripts === 'compare' ? { ...judged, exercised: { ...judged.exercised, twinsMatchLua: true } } : judged;
  // The stop is a finding of its own, about its script (or the whole run).
  const report = stopped ? reportOfStoppedRun(compared, { kind: stopped.kind, id: stopped.subject ?? 'run', t: stopped.t, processes: [], detail: stopped.detail }) : compared;
  let traceHash: string | null = null;
  if (trace.mode === 'count') trace.seal();
  else traceHash = trace.digest();
  const traceText = trace.text();
  const traceEvents = trace.events;
  // After the digest: what drains now (replication in flight) is not part of the recorded run.
  let replicas: ReplicaComparison | null = null;
  if (world.topology.kind === 'dynomite' && !stopped) {
    await kernel.runUntil(kernel.now + REPLICATION_DRAIN_MS);
    replicas = compareReplicas(world);
  }
  const result = {
    config,
    report,
    history: recorder.history,
    faults,
    exposed: faults.some((f) => f.exposure.struck),
    traceEvents,
    kernelEvents: kernel.eventsExecuted,
    simulatedMs: endedAt - SIM_EPOCH,
    livenessStart,
    replicas,
    calls: callsOf(actors.values()),
    races: Object.fromEntries(ctx.races),
    stopped,
  };
  return traceHash === null ? { ...result, traceHash, traceText: null } : { ...result, traceHash, traceText };
}

