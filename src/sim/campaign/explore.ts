import { ALWAYS_REQUIRED, PROPERTIES_WORST_FIRST, PROPERTY_NAMES, VIOLATION_KINDS, worstFinding, type PropertyName } from '../../model/properties.js';
import { configForFile, parseSimConfig, type SimConfig, type SimConfigInput } from '../run/config.js';
import { generateFaults, type FaultFamily } from '../faults/index.js';
import { classifyFindings, mechanismKey, mechanismsWorstFirst } from './mechanisms.js';
import { Rng } from '../kernel/rng.js';
import { relativeTimes } from '../../model/relative-times.js';
import { runSimulation } from '../run/run.js';
import { SIM_EPOCH } from '../run/world.js';
import { shrink } from './shrink.js';
import { CONSUMER_LOOPS, PROFILE_NAMES } from '../settings/workload-profile.js';
import type { Clock } from '../../queue/time.js';
import type { ScriptMode } from '../../redis/keyspace.js';
export { scriptModeOfSeed, type ExploreScripts } from './explore-scripts.js';
import { TimeBudgetReachedError } from '../run/time-budget.js';


/**
 * Around a user's own configuration: its topology, queue options, network, workload and phases are
 * kept; each seed draws a new fault schedule (1–5 faults in the safety phase) and a new seed.
 */
export function configurationAround(base: SimConfig, seed: string, families?: readonly FaultFamily[]): SimConfig {
  const rng = new Rng(seed, 'explore-from');
  const faults = generateFaults(rng.stream('faults'), { count: rng.int(1, 5), safetyMs: base.phases.safetyMs, config: base, ...(families ? { families } : {}) });
  return parseSimConfig({ ...base, seed, faults, keepTrace: false });
}

/** A random configuration and fault schedule for one seed (swarm testing). */
export function randomConfiguration(seed: string, families?: readonly FaultFamily[]): SimConfig {
  const rng = new Rng(seed, 'explore');
  const zones = ['a', 'b', 'c'].slice(0, rng.int(1, 3));
  // At least one consumer per zone: a shard nobody pops is never drained, which is no finding.
  const consumers = rng.int(zones.length, 4);
  const mode = rng.pick(['legacy', 'atomic'] as const);
  const kind = rng.pick(['dynomite', 'primary-replica'] as const);
  const input: SimConfigInput = {
    seed,
    topology: {
      kind,
      zones,
      quorumConsistency: rng.pick(['DC_ONE', 'DC_QUORUM', 'DC_SAFE_QUORUM'] as const),
      failoverDelayMs: rng.int(500, 3_000),
    },
    queue: { mode, unackTimeoutMs: rng.int(300, 3_000), reaperIntervalMs: rng.int(50, 500), serverTime: mode === 'atomic' && rng.chance(0.3) && kind === 'primary-replica' },
    network: { lagMeanMs: rng.int(0, 100) },
    workload: {
      messages: rng.int(10, 80),
      producers: rng.int(1, 3),
      rate: rng.int(20, 200),
      consumers,
      consumerBatch: rng.int(1, 5),
      processingMeanMs: rng.int(1, 300),
      crashBeforeAckProbability: rng.chance(0.3) ? 0.05 : 0,
      lateAckProbability: rng.chance(0.3) ? 0.1 : 0,
      lateAckMs: rng.int(0, 3_000),
      // Every profile, and now and then a random mix of consumer loops over it.
      profile: rng.pick(PROFILE_NAMES),
      ...(rng.chance(0.3) ? { consumerLoops: CONSUMER_LOOPS.filter(() => rng.chance(0.5)).concat(rng.pick(CONSUMER_LOOPS)) } : {}),
    },
    phases: { safetyMs: 3_000, livenessMs: 30_000 },
  };
  input.faults = generateFaults(rng.stream('faults'), { count: rng.int(1, 5), safetyMs: 3_000, config: parseSimConfig(input), ...(families ? { families } : {}) });
  return parseSimConfig(input);
}

/** Which seeds a shard explores: shard K of N takes seed indices K-1, K-1+N, K-1+2N, … (1-based K). */
export interface Shard {
  readonly index: number;
  readonly count: number;
}

/** The i-th seed index of a shard (i = 0, 1, 2, …). */
export function shardSeedIndex(shard: Shard, i: number): number {
  return shard.index - 1 + i * shard.count;
}

/** One explored seed, as one line of an explore results file (`dynoq merge` reads them). */
export interface SeedOutcome {
  readonly seed: string;
  /** Properties the run violated (empty: nothing found). */
  readonly failing: PropertyName[];
  /**
   * The violated properties the gate requires (explore --require; all by default), minus those whose
   * every mechanism is known (--known): a seed fails the gate only when this is not empty.
   */
  readonly gate: PropertyName[];
  /** The mechanisms behind the findings (`kind ← cause`, as docs/GUARANTEES.md names them). */
  readonly mechanisms: string[];
  /** Properties the run could have broken (docs/CHECKER.md §5), and the public queue methods it called. */
  readonly exercised: PropertyName[];
  readonly calls: string[];
  /** The races the full profile's racers made in this run (src/sim/workloads/race.ts). */
  readonly races: string[];
  readonly traceHash: string;
  /** The shrunk scenario that replays the finding (only when `failing` is not empty). */
  readonly scenario?: Record<string, unknown> & { readonly name: string };
  readonly shrinkRuns?: number;
  /** Shrinking stopped at the time budget: the scenario fails but may not be the smallest. */
  readonly shrinkStoppedByTime?: boolean;
  /** How the seed's scripts ran (absent: the process's default). */
  readonly scripts?: ScriptMode;
  /** A finding made on the twins, its shrunk scenario run again in Lua: whether it still fails the gate there. */
  readonly luaConfirms?: boolean;
}

/** A seed whose simulation the time budget stopped before its end: no verdict. */
export interface UnfinishedSeed {
  readonly seed: string;
  readonly unfinished: true;
}

/** Input of one exploration task: a seed, and the user's configuration to explore around, if any. */
export interface ExploreTask {
  readonly seed: string;
  readonly base?: SimConfig;
  /** The properties the set-up must keep (default: every property). */
  readonly require?: readonly PropertyName[];
  /** The fault families to draw from (default: every family the configuration allows). */
  readonly families?: readonly FaultFamily[];
  /** Mechanisms (`kind ← cause`) already published for this set-up: findings made only of them pass the gate. */
  readonly known?: readonly string[];
  /**
   * Time on `budgetClock` at which shrinking stops and a running simulation is stopped (explore
   * --time); the outcome then depends on the machine's speed.
   */
  readonly shrinkUntil?: number;
  /** How this seed runs its scripts (absent: the process's default). */
  readonly scripts?: ScriptMode;
}

/**
 * Runs one seed; a violation is shrunk into a scenario that replays it. Deterministic per task unless
 * `shrinkUntil` cut the shrinking short: `budgetClock` is read only for that, between runs, never inside one
 * (the pool passes the real clock; without one a deadline cannot be checked and is refused).
 */
export async function exploreSeed(task: ExploreTask, budgetClock?: Clock): Promise<SeedOutcome | UnfinishedSeed> {
  if (task.shrinkUntil !== undefined && !budgetClock) throw new Error('exploreSeed: shrinkUntil needs a budget clock');
  const around = task.base ? configurationAround(task.base, task.seed, task.families) : randomConfiguration(task.seed, task.families);
  const config = task.scripts ? { ...around, scripts: task.scripts } : around;
  const until = task.shrinkUntil;
  const wallDeadline = until !== undefined && budgetClock ? { now: () => budgetClock.now(), at: until } : undefined;
  let result;
  try {
    result = await runSimulation(config, wallDeadline ? { wallDeadline } : {});
  } catch (err) {
    if (err instanceof TimeBudgetReachedError) return { seed: task.seed, unfinished: true };
    throw err;
  }
  const failing = PROPERTIES_WORST_FIRST.filter((p) => !result.report.properties[p]);
  const exercised = PROPERTY_NAMES.filter((p) => result.report.exercised[p]);
  const calls = Object.keys(result.calls);
  const races = Object.keys(result.races);
  const found = classifyFindings(result.report.violations, result.history, result.faults);
  const mechanisms = mechanismsWorstFirst(found);
  const required = [...(task.require ?? PROPERTY_NAMES), ...ALWAYS_REQUIRED];
  const known = new Set(task.known ?? []);
  const gating = found.filter((m) => required.includes(VIOLATION_KINDS[m.kind].breaks!) && !known.has(mechanismKey(m)));
  const gate = failing.filter((p) => gating.some((m) => VIOLATION_KINDS[m.kind].breaks === p));
  // Shrunk to keep the worst finding that fails the gate, so that the scenario is titled by it.
  const worstKind = gating.reduce<(typeof gating)[number] | undefined>((w, m) => (!w || VIOLATION_KINDS[m.kind].rank < VIOLATION_KINDS[w.kind].rank ? m : w), undefined)?.kind;
  const plain = { seed: task.seed, failing, gate, mechanisms, exercised, calls, races, traceHash: result.traceHash, ...(task.scripts ? { scripts: task.scripts } : {}) };
  if (gate.length === 0) return plain;
  const stillFails = (r: { readonly report: { readonly properties: Readonly<Record<PropertyName, boolean>>; readonly counts: Readonly<Record<string, number>> } }) =>
    worstKind !== undefined ? (r.report.counts[worstKind] ?? 0) > 0 : gate.some((p) => !r.report.properties[p]);
  // A compare run that found no twin unlike its Lua gave the twins' trace: the finding shrinks on the
  // twins (several times faster) and is run again in Lua below, as every finding shrunk on them.
  const onTwins = config.scripts === 'compare' && !gate.includes('twinsMatchLua');
  const small = await shrink(onTwins ? { ...config, scripts: 'twin' } : config, stillFails, {
    keepLiveness: worstKind !== undefined && VIOLATION_KINDS[worstKind].breaks === 'atLeastOnce',
    firstRun: result,
    unhashedCandidates: true,
    ...(until !== undefined && budgetClock ? { timeUp: () => budgetClock.now() >= until } : {}),
    ...(wallDeadline ? { wallDeadline } : {}),
  });
  // A finding made on the twins, run again as Redis runs it: a finding the Lua does not share is the twin's.
  let luaConfirms: boolean | undefined;
  if ((small.config.scripts ?? 'twin') === 'twin') {
    try {
      luaConfirms = stillFails(await runSimulation({ ...small.config, scripts: 'lua', keepTrace: false }, { traceHash: false, ...(wallDeadline ? { wallDeadline } : {}) }));
    } catch (err) {
      if (!(err instanceof TimeBudgetReachedError)) throw err;
    }
  }
  const held = PROPERTY_NAMES.filter((p) => small.result.report.properties[p]);
  const violated = PROPERTY_NAMES.filter((p) => !small.result.report.properties[p]);
  const violatedWorstFirst = PROPERTIES_WORST_FIRST.filter((p) => violated.includes(p));
  const name = `found-${task.seed}`.toLowerCase().replace(/[^a-z0-9-]/g, '-');
  const worstFound = worstFinding(small.result.report.violations);
  const worst = worstFound ? `${worstFound.kind} of ${worstFound.id} at t+${Math.round(worstFound.t - SIM_EPOCH)} ms: ${relativeTimes(worstFound.detail, SIM_EPOCH)}` : 'n/a';
  const scenario = {
    name,
    description: `Found by dynoq explore (seed ${task.seed}), shrunk in ${small.runs} runs${small.stoppedByTime ? ' (stopped at the --time budget: may not be the smallest)' : ''}: violates ${violatedWorstFirst.join(', ')}.${luaConfirms === false ? " Only on the scripts' JavaScript twins: run in Redis's Lua it does not fail (a twin unlike its Lua)." : ''} Worst violation: ${worst}`,
    ...configForFile(small.config),
    keepTrace: false,
    expect: { hold: held, violate: violated, traceHash: small.result.traceHash },
  };
  return { ...plain, scenario, shrinkRuns: small.runs, ...(small.stoppedByTime ? { shrinkStoppedByTime: true } : {}), ...(luaConfirms !== undefined ? { luaConfirms } : {}) };
}
