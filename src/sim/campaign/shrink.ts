import type { SimConfig } from '../run/config.js';
import { configProblems } from '../run/config-problems.js';
import { runSimulation, type SimResult, type UnhashedSimResult } from '../run/run.js';
import type { WallDeadline } from '../kernel/kernel.js';
import { TimeBudgetReachedError } from '../run/time-budget.js';

export interface ShrinkResult {
  readonly config: SimConfig;
  /** The smallest failing configuration's run, with its trace hash. */
  readonly result: SimResult;
  /** Runs it took to get there (the traced re-run of the result not counted). */
  readonly runs: number;
  /** Stopped by `timeUp` before no smaller neighbour failed: the config still fails but may not be minimal. */
  readonly stoppedByTime: boolean;
}

export interface ShrinkOptions {
  /** Keep the liveness phase as long as it is: a shorter wait is a weaker check, not a smaller failure. */
  readonly keepLiveness: boolean;
  readonly maxRuns?: number;
  /** Checked before each further run (explore --time): true stops with the smallest failing config so far. */
  readonly timeUp?: () => boolean;
  /** A run of the configuration already made (explore's first run): used instead of running it again. */
  readonly firstRun?: SimResult | UnhashedSimResult;
  /**
   * Run the candidates without hashing their traces (faster; the one kept runs again hashed): then
   * `stillFails` sees `traceHash` and `traceText` null. The table's and explore's shrinks do.
   */
  readonly unhashedCandidates?: boolean;
  /** Stops a candidate's run at this wall-clock deadline (explore --time); shrinking then stops as with `timeUp`. */
  readonly wallDeadline?: WallDeadline;
}

/**
 * Smaller neighbours of a configuration, most aggressive first. Every zone keeps a consumer (a shard
 * nobody pops is trivially never drained).
 */
function candidates(c: SimConfig, keepLiveness: boolean): SimConfig[] {
  const out: SimConfig[] = [];
  for (let i = 0; i < c.faults.length; i++) out.push({ ...c, faults: c.faults.filter((_, j) => j !== i) });
  const w = c.workload;
  if (w.messages > 1) out.push({ ...c, workload: { ...w, messages: Math.max(1, Math.floor(w.messages / 2)) } });
  if (w.messages > 1) out.push({ ...c, workload: { ...w, messages: w.messages - 1 } });
  if (w.consumers > c.topology.zones.length && !c.faults.some((f) => 'actor' in f && f.actor === `consumer-${w.consumers - 1}`)) {
    out.push({ ...c, workload: { ...w, consumers: w.consumers - 1 } });
  }
  if (w.producers > 1) out.push({ ...c, workload: { ...w, producers: w.producers - 1 } });
  if (w.crashBeforeAckProbability > 0) out.push({ ...c, workload: { ...w, crashBeforeAckProbability: 0 } });
  if (w.lateAckProbability > 0) out.push({ ...c, workload: { ...w, lateAckProbability: 0 } });
  const p = c.phases;
  const lastFault = Math.max(0, ...c.faults.map((f) => f.at + 1));
  if (p.safetyMs > 500 && Math.floor(p.safetyMs / 2) > lastFault) out.push({ ...c, phases: { ...p, safetyMs: Math.floor(p.safetyMs / 2) } });
  if (!keepLiveness && p.livenessMs > 2_000) out.push({ ...c, phases: { ...p, livenessMs: Math.floor(p.livenessMs / 2) } });
  return out;
}

/**
 * Greedy shrinking: keep taking the first smaller neighbour for which `stillFails` holds, until none
 * does, the run budget is spent or `timeUp` says so. With `unhashedCandidates` the candidates run
 * without hashing their trace (only the verdict decides) and the one kept runs once more with its hash,
 * which a scenario records.
 */
export async function shrink(config: SimConfig, stillFails: (r: SimResult) => boolean, options: ShrinkOptions & { readonly unhashedCandidates?: false }): Promise<ShrinkResult>;
export async function shrink(
  config: SimConfig,
  stillFails: (r: SimResult | UnhashedSimResult) => boolean,
  options: ShrinkOptions,
): Promise<ShrinkResult>;
export async function shrink(
  config: SimConfig,
  // Either overload's predicate: each is only ever given the runs its overload promises.
  predicate: ((r: SimResult) => boolean) | ((r: SimResult | UnhashedSimResult) => boolean),
  options: ShrinkOptions,
): Promise<ShrinkResult> {
  const stillFails = predicate as (r: SimResult | UnhashedSimResult) => boolean;
  const maxRuns = options.maxRuns ?? 150;
  // An unhashed run keeps no lines: the candidates drop keepTrace, the configuration kept has it back.
  const deadline = options.wallDeadline ? { wallDeadline: options.wallDeadline } : {};
  const run = (c: SimConfig) => (options.unhashedCandidates ? runSimulation({ ...c, keepTrace: false }, { traceHash: false, ...deadline }) : runSimulation(c, deadline));
  let current = config;
  let result = options.firstRun ?? (await run(current));
  let runs = 1;
  let improved = true;
  let stoppedByTime = false;
  while (improved && runs < maxRuns && !stoppedByTime) {
    improved = false;
    for (const next of candidates(current, options.keepLiveness)) {
      if (runs >= maxRuns) break;
      if (options.timeUp?.()) {
        stoppedByTime = true;
        break;
      }
      // A smaller set-up can orphan a fault (a clock skew aimed at a consumer that no longer exists).
      if (configProblems(next).length > 0) continue;
      let r: SimResult | UnhashedSimResult;
      try {
        r = await run(next);
      } catch (err) {
        if (!(err instanceof TimeBudgetReachedError)) throw err;
        stoppedByTime = true;
        break;
      }
      runs++;
      if (stillFails(r)) {
        current = next;
        result = r;
        improved = true;
        break;
      }
    }
  }
  const first = options.firstRun;
  // Nothing smaller failed and the first run was hashed: it is the traced run already.
  const traced = current === config && first && first.traceHash !== null ? first : await runSimulation(current);
  // Same configuration, same run: a verdict that moved with hashing on would be a determinism bug.
  if (stillFails(traced) !== stillFails(result)) throw new Error(`shrink: ${current.seed} gave another verdict when run again with its trace hashed`);
  return { config: current, result: traced, runs, stoppedByTime };
}
