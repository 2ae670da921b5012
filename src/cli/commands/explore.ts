import { appendFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { scriptModeOfSeed, shardSeedIndex, type ExploreScripts, type ExploreTask, type SeedOutcome, type Shard, type UnfinishedSeed } from '../../sim/campaign/explore.js';
import { systemClock } from '../../runtime/system-time.js';
import { runPoolTask } from '../../sim/campaign/pool-handlers.js';
import { runInPool, type PoolTask } from '../../sim/campaign/pool.js';
import { scenarioConfig } from '../../sim/run/scenario.js';
import { loadScenarioFile } from '../scenario-file.js';
import { EXIT } from '../exit-codes.js';
import { PROPERTIES, PROPERTY_NAMES, type PropertyName } from '../../model/properties.js';
import { DRIVEN_METHODS } from '../../sim/workloads/coverage.js';
import { RACE_LABELS, RACE_NAMES, type RaceName } from '../../sim/workloads/race-names.js';
import { emitJson, writeOutput } from '../output.js';
import { progress } from '../progress.js';
import { readKnown } from '../known-mechanisms.js';
import type { FaultFamily } from '../../sim/faults/index.js';
import { regularFileOrThrow } from '../regular-file.js';

interface ExploreFlags {
  time?: number;
  runs?: number;
  seed: string;
  out: string;
  /** A scenario file: explore around its topology, queue and workload (new seeds and fault schedules). */
  from?: string;
  /** The properties the set-up must keep (default all): findings that break only others are reported, not failed. */
  require?: PropertyName[];
  /** The fault families to draw (default: every family the configuration allows). */
  faults?: FaultFamily[];
  /** A JSON file listing mechanisms already published for this set-up (`kind ← cause`): findings made only of them are known, not failed. */
  known?: string;
  /** Worker threads (default 1: this thread; `--jobs 0` is not accepted). */
  jobs?: number;
  /** Explore only this shard's seeds (a CI matrix runs one shard per job; `dynoq merge` combines them). */
  shard?: Shard;
  /** One JSON line per explored seed (default: `<out>/explore[-K-of-N].jsonl`). */
  results?: string;
  /** How the seeds run their scripts (default `mixed`: every 4th seed in Redis's Lua with each twin compared). */
  scripts?: ExploreScripts;
  json?: boolean;
}

/** The default results file of a shard: shards written into one folder do not overwrite each other. */
function resultsFileFor(out: string, shard: Shard | undefined): string {
  return join(out, shard ? `explore-${shard.index}-of-${shard.count}.jsonl` : 'explore.jsonl');
}

/**
 * Swarm exploration: random seeds (seed i is `<seed>-<i>`; a shard takes every N-th) until the runs or
 * the time budget end; each violation is shrunk (on the worker that found it) and written out as a
 * scenario file, and every seed's outcome is one line of the results file. The time budget stops new
 * seeds, shrinking and the simulations running at it (between two events); a seed so stopped has no
 * verdict. A finding already made still gets its smallest scenario run once more, hashed.
 */
export async function exploreCommand(flags: ExploreFlags): Promise<number> {
  const deadline = flags.time !== undefined ? systemClock.now() + flags.time : Infinity;
  const maxRuns = flags.runs ?? Infinity;
  if (flags.from !== undefined) regularFileOrThrow(flags.from, '--from ');
  if (flags.known !== undefined) regularFileOrThrow(flags.known, '--known ');
  const base = flags.from !== undefined ? scenarioConfig(loadScenarioFile(flags.from)) : undefined;
  const known = flags.known !== undefined ? readKnown(flags.known) : undefined;
  const outside: { seed: string; failing: string[]; mechanisms: string[] }[] = [];
  const shard = flags.shard ?? { index: 1, count: 1 };
  const resultsFile = flags.results ?? resultsFileFor(flags.out, flags.shard);
  writeOutput(resultsFile, '');
  const jobs = flags.jobs ?? 1;
  const bar = progress('explore');
  const findings: { seed: string; failing: string[]; file: string; faults: number; messages: number }[] = [];
  console.log(`seed ${flags.seed}${flags.shard ? ` shard ${shard.index}/${shard.count}` : ''}`);

  let taken = 0;
  const take = (): PoolTask<ExploreTask> | undefined => {
    if (taken >= maxRuns || systemClock.now() >= deadline) return undefined;
    const index = shardSeedIndex(shard, taken++);
    const seed = `${flags.seed}-${index}`;
    const scripts = scriptModeOfSeed(index, flags.scripts ?? 'mixed');
    return {
      handler: 'exploreSeed',
      input: {
        seed,
        ...(scripts ? { scripts } : {}),
        ...(base ? { base } : {}),
        ...(Number.isFinite(deadline) ? { shrinkUntil: deadline } : {}),
        ...(flags.require ? { require: flags.require } : {}),
        ...(flags.faults ? { families: flags.faults } : {}),
        ...(known ? { known } : {}),
      },
    };
  };
  let done = 0;
  const exercised = Object.fromEntries(PROPERTY_NAMES.map((p) => [p, 0])) as Record<PropertyName, number>;
  const calls = Object.fromEntries(DRIVEN_METHODS.map((m) => [m, 0])) as Record<string, number>;
  const races = Object.fromEntries(RACE_NAMES.map((race) => [race, 0])) as Record<RaceName, number>;
  const unfinished: string[] = [];
  const record = (outcome: SeedOutcome | UnfinishedSeed) => {
    if ('unfinished' in outcome) {
      unfinished.push(outcome.seed);
      bar.stop();
      console.log(`time budget reached: seed ${outcome.seed} stopped before its end, no verdict`);
      return;
    }
    const o = outcome;
    appendFileSync(resultsFile, `${JSON.stringify(o)}\n`);
    for (const p of o.exercised) exercised[p]++;
    for (const m of o.calls) calls[m] = (calls[m] ?? 0) + 1;
    for (const race of o.races) races[race as RaceName] += 1;
    if (o.failing.length > 0 && o.gate.length === 0) {
      outside.push({ seed: o.seed, failing: o.failing, mechanisms: o.mechanisms });
      bar.stop();
      console.log(`reported, not failed: seed ${o.seed} violates ${o.failing.join(', ')} (${o.mechanisms.join('; ')}): outside --require or known`);
    }
    bar.update(++done, Number.isFinite(maxRuns) ? maxRuns : done);
    if (!o.scenario) return;
    const file = join(flags.out, `${o.scenario.name}.json`);
    writeOutput(file, `${JSON.stringify(o.scenario, null, 2)}\n`);
    const s = o.scenario as unknown as { faults: unknown[]; workload: { messages: number } };
    findings.push({ seed: o.seed, failing: o.failing, file, faults: s.faults.length, messages: s.workload.messages });
    bar.stop();
    const cut = o.shrinkStoppedByTime ? ' (shrinking stopped at the --time budget: it still fails, but may not be the smallest)' : '';
    const twinOnly = o.luaConfirms === false ? " (on the scripts' twins only: in Redis's Lua it does not fail)" : '';
    console.log(`violation at seed ${o.seed}: ${o.failing.join(', ')} → shrunk to ${s.faults.length} fault(s), ${s.workload.messages} message(s)${cut}${twinOnly} → ${file}`);
  };
  const started = performance.now();
  if (jobs === 1) {
    // The pool's handler in this thread: the same budget clock as in a worker.
    for (let task = take(); task !== undefined; task = take()) record((await runPoolTask(task)) as SeedOutcome | UnfinishedSeed);
  } else {
    await runInPool(take, runPoolTask, { jobs: Math.min(jobs, availableParallelism() * 4), onResult: (r) => record(r as SeedOutcome | UnfinishedSeed) });
  }
  bar.stop();
  const seconds = (performance.now() - started) / 1_000;
  console.log(`explored ${done} seed(s) in ${seconds.toFixed(1)} s on ${jobs} thread(s) (${(done / seconds).toFixed(2)} runs/s), ${findings.length} failing the gate, ${outside.length} reported only; results in ${resultsFile}`);
  console.log(`properties exercised (runs that could have broken them): ${PROPERTY_NAMES.map((p) => `${PROPERTIES[p].label} ${exercised[p]}`).join(' · ')}`);
  console.log(`queue operations exercised (runs that called them): ${Object.entries(calls).map(([m, n]) => `${m} ${n}`).join(' · ')}`);
  if (RACE_NAMES.some((race) => races[race] > 0)) console.log(`races exercised (runs that made them): ${RACE_NAMES.map((race) => `${RACE_LABELS[race]} ${races[race]}`).join(' · ')}`);
  const neverProperties = PROPERTY_NAMES.filter((p) => exercised[p] === 0);
  const neverCalled = Object.entries(calls).filter(([, n]) => n === 0).map(([m]) => m);
  if (done > 0 && neverProperties.length > 0) console.log(`warning: never exercised, so this session says nothing about: ${neverProperties.map((p) => PROPERTIES[p].label).join(', ')}`);
  if (done > 0 && neverCalled.length > 0) console.log(`warning: never called in this session: ${neverCalled.join(', ')}`);
  // --runs asked for seeds the budget did not let finish: nothing found is then no pass.
  const incomplete = findings.length === 0 && Number.isFinite(maxRuns) && done < maxRuns;
  if (incomplete) console.log(`time budget reached after ${done} of ${maxRuns} seed(s)${unfinished.length > 0 ? ` (${unfinished.length} stopped before their end)` : ''}: nothing found so far, but not every seed was explored (exit ${EXIT.unknown})`);
  if (flags.json) emitJson({ seed: flags.seed, shard: flags.shard ?? null, from: flags.from ?? null, explored: done, unfinished, found: findings.length, results: resultsFile, findings, reported: outside, exercised, calls, races, timeBudgetReached: incomplete || unfinished.length > 0 });
  return findings.length > 0 ? EXIT.violated : incomplete ? EXIT.unknown : EXIT.ok;
}
