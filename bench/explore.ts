/**
 * Harness throughput benchmark (npm run bench:explore), not a test: runs per second of `dynoq explore`
 * and of the guarantees table on one worker thread and on every core, side by side in one run, on
 * the same seeds (the outcome of a seed does not depend on the thread count). Prints the load average
 * before and after: on a shared machine the ratio is only as good as the idle cores.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
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

/** The compiled bin's `explore` over the same seeds: one process, or `cores` processes each given one `--shard K/N`. */
async function shards(n: number): Promise<{ seconds: number }> {
  const out = mkdtempSync(join(tmpdir(), 'dynoq-bench-shard-'));
  const started = performance.now();
  const one = (args: string[]) =>
    new Promise<void>((resolve, reject) => {
      const p = spawn(process.execPath, ['bin/dynoq.mjs', 'explore', '--runs', String(RUNS), '--seed', 'bench', '--out', out, ...args], { stdio: 'ignore' });
      // exit 1 means a violation was found: a normal outcome for explore.
      p.on('exit', (code) => (code === 0 || code === 1 ? resolve() : reject(new Error(`explore ${args.join(' ')} exited ${code}`))));
    });
  // Each of the n processes gets its share of the cores (explore's default is every core, which would
  // run n × cores threads on cores cores: an unfair comparison).
  const jobs = String(Math.max(1, Math.floor(cores / n)));
  await Promise.all(n === 1 ? [one([])] : Array.from({ length: n }, (_, k) => one(['--shard', `${k + 1}/${n}`, '--jobs', jobs])));
  rmSync(out, { recursive: true, force: true });
  return { seconds: (performance.now() - started) / 1_000 };
}

async function table(jobs: number): Promise<{ seconds: number; runs: number }> {
  const m = await measureGuarantees({ seeds: TABLE_SEEDS, jobs });
  return { seconds: m.seconds, runs: m.runs };
}

console.log(`cores ${cores}; load average before ${loadavg().map((x) => x.toFixed(2)).join(' ')}`);
const e1 = await explore(1);
const eN = await explore(cores);
console.log(`explore, ${RUNS} seeds (${e1.found} findings, each shrunk): 1 thread ${(RUNS / e1.seconds).toFixed(2)} runs/s · ${cores} threads ${(RUNS / eN.seconds).toFixed(2)} runs/s · ×${(e1.seconds / eN.seconds).toFixed(2)}`);
if (existsSync('dist/cli.js')) {
  const s1 = await shards(1);
  const sN = await shards(cores);
  console.log(`explore through the compiled bin, ${RUNS} seeds: 1 process on ${cores} threads ${(RUNS / s1.seconds).toFixed(2)} runs/s · ${cores} processes with --shard K/${cores} --jobs 1 ${(RUNS / sN.seconds).toFixed(2)} runs/s · ×${(s1.seconds / sN.seconds).toFixed(2)}`);
} else {
  console.log('explore --shard: skipped, dist/ is not built (npm run build)');
}
const t1 = await table(1);
const tN = await table(cores);
console.log(`guarantees table, ${t1.runs} runs: 1 thread ${(t1.runs / t1.seconds).toFixed(2)} runs/s · ${cores} threads ${(tN.runs / tN.seconds).toFixed(2)} runs/s · ×${(t1.seconds / tN.seconds).toFixed(2)}`);
console.log(`load average after ${loadavg().map((x) => x.toFixed(2)).join(' ')}`);
