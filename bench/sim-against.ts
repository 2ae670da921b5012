/**
 * The simulator's two workloads on this checkout's dist/ against another commit's, side by side in
 * one process: the runs alternate (theirs, ours, theirs, ours …) so that the load of a shared machine
 * weighs on both alike, and each pair gives a ratio. The other commit is built in a temporary git
 * worktree (sharing this checkout's node_modules) that is removed afterwards. Also checks that both
 * builds give the same trace hash: a speed change that moves a hash changed the simulation.
 *
 *   npm run bench:against -- REV [--runs N]        (N pairs per workload, default 10)
 *
 * Not a test. Build this checkout first (the npm script does).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { referenceWorkload, SPARSE_HOUR, timedRun, type TimedRun } from './sim-workloads.js';

const USAGE = 'usage: npm run bench:against -- REV [--runs N]   (REV: a commit, N: pairs per workload, an integer ≥ 1)';

const { positionals, values } = parseArgs({ allowPositionals: true, options: { runs: { type: 'string', default: '10' } } });
const rev = positionals[0];
const runs = Number(values.runs);
if (!rev || !Number.isInteger(runs) || runs < 1) {
  console.error(USAGE);
  process.exit(2);
}

const root = resolve(import.meta.dirname, '..');
const git = (...args: string[]) => execFileSync('git', args, { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
let theirsCommit: string;
try {
  theirsCommit = git('rev-parse', '--short', '--verify', `${rev}^{commit}`);
} catch {
  console.error(`bench:against: ${rev} is not a commit of this repository`);
  console.error(USAGE);
  process.exit(2);
}
const oursCommit = git('rev-parse', '--short', 'HEAD') + (git('status', '--porcelain', '--untracked-files=no') ? ' (with uncommitted changes)' : '');
const scratch = mkdtempSync(join(tmpdir(), 'dynoq-against-'));
const worktree = join(scratch, 'tree');
type Engine = Parameters<typeof timedRun>[0];

try {
  git('worktree', 'add', '--detach', worktree, rev);
  symlinkSync(join(root, 'node_modules'), join(worktree, 'node_modules'));
  execFileSync(process.execPath, ['scripts/build.mjs'], { cwd: worktree, stdio: 'ignore' });
  const theirs = (await import(join(worktree, 'dist', 'sim.js'))) as Engine;
  const ours = (await import(join(root, 'dist', 'sim.js'))) as Engine;
  console.log(`${theirsCommit} (theirs) against ${oursCommit} (ours), ${runs} alternating pairs per workload after one warm-up pair`);
  for (const [name, input] of [['sparse hour', SPARSE_HOUR], ['dense reference', referenceWorkload(10_000)]] as const) {
    const pairs: [TimedRun, TimedRun][] = [];
    for (let i = 0; i <= runs; i++) {
      const pair: [TimedRun, TimedRun] = [await timedRun(theirs, input), await timedRun(ours, input)];
      if (i > 0) pairs.push(pair);
    }
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;
    const rate = (r: TimedRun[]) => Math.round(r[0]!.simulatedMs / median(r.map((x) => x.wallMs))).toLocaleString('en-US');
    const same = pairs.every(([a, b]) => a.traceHash === b.traceHash);
    console.log(
      `${name}: theirs ${median(pairs.map(([a]) => a.wallMs)).toFixed(0)} ms (${rate(pairs.map(([a]) => a))} simulated s per wall s) · ` +
        `ours ${median(pairs.map(([, b]) => b.wallMs)).toFixed(0)} ms (${rate(pairs.map(([, b]) => b))}) · ` +
        `ours ×${median(pairs.map(([a, b]) => a.wallMs / b.wallMs)).toFixed(3)} (median of the pairs' ratios) · ` +
        `trace hashes ${same ? `equal (${pairs[0]![1].traceHash.slice(0, 12)})` : 'DIFFER'}`,
    );
  }
} finally {
  rmSync(scratch, { recursive: true, force: true });
  git('worktree', 'prune');
}
