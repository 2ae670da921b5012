/**
 * Harness throughput benchmark (npm run bench:explore), not a test: runs per second of `dynoq explore`
 * and of the guarantees table on one worker thread and on every core, side by side in one run, on
 * the same seeds (the outcome of a seed does not depend on the thread count). Prints the load average
 * before and after: on a shared machine the ratio is only as good as the idle cores.
 */
import { availableParallelism, loadavg } from 'node:os';
import type { SeedOutcome } from '../src/sim/explore.js';
import { measureGuarantees } from '../src/sim/measure-guarantees.js';
import { runPoolTask } from '../src/sim/pool-handlers.js';
import { runInPool } from '../src/sim/pool.js';

const RUNS = Number(process.env.BENCH_EXPLORE_RUNS ?? 24);
const TABLE_SEEDS = Number(process.env.BENCH_TABLE_SEEDS ?? 4);
const cores = availableParallelism();

async function explore(jobs: number): Promise<{ seconds: number; found: number }> {
  const tasks = Array.from({ length: RUNS }, (_, i) => ({ handler: 'exploreSeed', input: { seed: `bench-${i}` } }));
  const started = performance.now();
  // jobs 1 runs in this thread (no worker start-up), as `dynoq explore` does.
  const outcomes = (await runInPool(tasks, runPoolTask, { jobs })) as SeedOutcome[];
  return { seconds: (performance.now() - started) / 1_000, found: outcomes.filter((o) => o.failing.length > 0).length };
}

async function table(jobs: number): Promise<{ seconds: number; runs: number }> {
  const m = await measureGuarantees({ seeds: TABLE_SEEDS, jobs });
  return { seconds: m.seconds, runs: m.runs };
}

console.log(`cores ${cores}; load average before ${loadavg().map((x) => x.toFixed(2)).join(' ')}`);
const e1 = await explore(1);
const eN = await explore(cores);
console.log(`explore, ${RUNS} seeds (${e1.found} findings, each shrunk): 1 thread ${(RUNS / e1.seconds).toFixed(2)} runs/s · ${cores} threads ${(RUNS / eN.seconds).toFixed(2)} runs/s · ×${(e1.seconds / eN.seconds).toFixed(2)}`);
const t1 = await table(1);
const tN = await table(cores);
console.log(`guarantees table, ${t1.runs} runs: 1 thread ${(t1.runs / t1.seconds).toFixed(2)} runs/s · ${cores} threads ${(tN.runs / tN.seconds).toFixed(2)} runs/s · ×${(t1.seconds / tN.seconds).toFixed(2)}`);
console.log(`load average after ${loadavg().map((x) => x.toFixed(2)).join(' ')}`);
