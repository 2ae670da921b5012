/**
 * Harness throughput benchmark (npm run bench:explore), not a test: runs per second of `dynoq explore`
 * and of the guarantees table on one worker thread and on every core, side by side in one run, on
 * the same seeds (the outcome of a seed does not depend on the thread count); then the compiled bin over
 * those seeds as one process on one thread, one process on every core, and one `--shard K/N` process per
 * core (each checked to explore exactly seeds 0…RUNS-1). Prints the load average before and after: on a
 * shared machine the ratio is only as good as the idle cores.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { SeedOutcome } from '../src/sim/campaign/explore.js';
import { measureGuarantees } from '../src/sim/campaign/measure-guarantees.js';
import { runPoolTask } from '../src/sim/campaign/pool-handlers.js';
import { runInPool } from '../src/sim/campaign/pool.js';

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

/**
 * `explore --runs R --shard K/N` explores R seeds of its own (seed indices K-1, K-1+N, …), not R/N: for
 * N shard processes to cover exactly seeds 0…RUNS-1, as the one process does, shard K is given this many.
 */
function shardRuns(k: number, n: number, runs: number): number {
  return Math.max(0, Math.floor((runs - k) / n) + 1);
}

/**
 * The compiled bin's `explore`, its processes side by side (one argument list each), into one folder:
 * total wall time, each process's wall time, and the seeds explored (read back from the results files,
 * so that every case is checked to cover the same seeds).
 */
async function bin(processes: string[][]): Promise<{ seconds: number; each: number[]; seeds: string[] }> {
  const out = mkdtempSync(join(tmpdir(), 'dynoq-bench-shard-'));
  const started = performance.now();
  const one = (args: string[]) =>
    new Promise<number>((resolve, reject) => {
      const p = spawn(process.execPath, ['bin/dynoq.mjs', 'explore', '--seed', 'bench', '--out', out, ...args], { stdio: 'ignore' });
      // exit 1 means a violation was found: a normal outcome for explore.
      p.on('exit', (code) => (code === 0 || code === 1 ? resolve((performance.now() - started) / 1_000) : reject(new Error(`explore ${args.join(' ')} exited ${code}`))));
    });
  const each = await Promise.all(processes.map(one));
  const seconds = (performance.now() - started) / 1_000;
  const seeds = readdirSync(out)
    .filter((f) => f.endsWith('.jsonl'))
    .flatMap((f) => readFileSync(join(out, f), 'utf8').trim().split('\n').filter(Boolean).map((l) => (JSON.parse(l) as SeedOutcome).seed));
  rmSync(out, { recursive: true, force: true });
  return { seconds, each, seeds };
}

/** One process on one thread (explore's default `--jobs 1`), one process on every core, and `n` shard processes of one thread each: all over seeds 0…RUNS-1. */
async function binCases(n: number) {
  const expected = Array.from({ length: RUNS }, (_, i) => `bench-${i}`).sort();
  const shardArgs = Array.from({ length: n }, (_, i) => i + 1)
    .filter((k) => shardRuns(k, n, RUNS) > 0)
    .map((k) => ['--runs', String(shardRuns(k, n, RUNS)), '--shard', `${k}/${n}`, '--jobs', '1']);
  const cases = {
    oneThread: await bin([['--runs', String(RUNS)]]),
    threads: await bin([['--runs', String(RUNS), '--jobs', String(n)]]),
    shards: await bin(shardArgs),
  };
  for (const [name, c] of Object.entries(cases)) {
    if (JSON.stringify([...c.seeds].sort()) !== JSON.stringify(expected)) throw new Error(`explore through the bin, ${name}: explored ${c.seeds.length} seeds, not bench-0…bench-${RUNS - 1}`);
  }
  return { ...cases, shardArgs };
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
  const b = await binCases(cores);
  const rate = (c: { seconds: number }) => `${(RUNS / c.seconds).toFixed(2)} runs/s`;
  const ratio = (c: { seconds: number }) => `×${(b.oneThread.seconds / c.seconds).toFixed(2)}`;
  console.log(
    `explore through the compiled bin, seeds bench-0…bench-${RUNS - 1} in every case: 1 process, 1 thread (--jobs 1, the default) ${rate(b.oneThread)}` +
      ` · 1 process, --jobs ${cores} ${rate(b.threads)} ${ratio(b.threads)}` +
      ` · ${b.shardArgs.length} processes (${b.shardArgs.map((a) => `--shard ${a[3]} --runs ${a[1]}`).join(', ')}; --jobs 1 each) ${rate(b.shards)} ${ratio(b.shards)}` +
      ` (each process's wall time: ${b.shards.each.map((s) => `${s.toFixed(1)} s`).join(', ')})`,
  );
} else {
  console.log('explore --shard: skipped, dist/ is not built (npm run build)');
}
const t1 = await table(1);
const tN = await table(cores);
console.log(`guarantees table, ${t1.runs} runs: 1 thread ${(t1.runs / t1.seconds).toFixed(2)} runs/s · ${cores} threads ${(tN.runs / tN.seconds).toFixed(2)} runs/s · ×${(t1.seconds / tN.seconds).toFixed(2)}`);
console.log(`load average after ${loadavg().map((x) => x.toFixed(2)).join(' ')}`);
