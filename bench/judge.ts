/**
 * `npm run bench:judge [-- 100000 1000000 10000000] [--delivery-bound MS] [--against DIR]`: the streaming judge on
 * synthetic histories (bench/judge-history.ts) of 10⁵, 10⁶ and 10⁷ operations — operations per second
 * and peak memory of the real `dynoq judge` command (compiled, run under --max-old-space-size=1024 so
 * that a heap over 1 GB fails the run), wall and CPU time and peak RSS from /usr/bin/time. Not a
 * test: the figures go to docs/BENCHMARKS.md with the load the machine had. `--against DIR` runs another
 * built checkout's `dynoq judge` (DIR/bin/dynoq.mjs) on each history first, side by side in the same
 * run, so that the machine's load weighs on both alike; CPU time is the figure to compare.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeSyntheticHistory } from './judge-history.js';

const root = join(import.meta.dirname, '..');
const args = process.argv.slice(2);
const boundAt = args.indexOf('--delivery-bound');
const bound = boundAt >= 0 ? Number(args[boundAt + 1]) : undefined;
const againstAt = args.indexOf('--against');
const against = againstAt >= 0 ? args[againstAt + 1] : undefined;
const sizes = args.filter((a, i) => /^\d+$/.test(a) && (boundAt < 0 || i !== boundAt + 1)).map(Number);
const load = () => loadavg().map((x) => x.toFixed(1)).join(' ');

console.log(`node ${process.version}, load average ${load()} (1/5/15 min)${bound !== undefined ? `, delivery bound ${bound} ms` : ''}`);
console.log('| build | operations | lines | file | wall | CPU (user+sys) | operations/s (wall) | operations/s (CPU) | peak RSS | verdict |');
console.log('|---|---:|---:|---:|---:|---:|---:|---:|---:|---|');
for (const operations of sizes.length > 0 ? sizes : [100_000, 1_000_000, 10_000_000]) {
  const file = join(tmpdir(), `dynoq-bench-judge-${operations}${bound !== undefined ? `-b${bound}` : ''}.jsonl`);
  let lines: number | string = '?';
  if (!existsSync(file)) lines = (await writeSyntheticHistory(operations, file, bound)).lines;
  for (const [build, dir] of [...(against !== undefined ? [['against', against] as const] : []), ['this', root] as const]) {
    const r = spawnSync('/usr/bin/time', ['-f', '%e %U %S %M', process.execPath, '--max-old-space-size=1024', join(dir, 'bin/dynoq.mjs'), 'judge', file], { encoding: 'utf8', maxBuffer: 1 << 28 });
    const timing = r.stderr.trim().split('\n').pop()!.split(' ').map(Number);
    const [wall, user, sys, rssKb] = timing as [number, number, number, number];
    const verdict = r.stdout.match(/verdict: (\w+)/)?.[1] ?? `exit ${r.status}: ${r.stderr.slice(0, 300)}`;
    const mb = (bytes: number) => `${(bytes / 1e6).toFixed(0)} MB`;
    const perS = (s: number) => Math.round(operations / s).toLocaleString('en');
    console.log(`| ${build === 'this' ? 'this checkout' : dir} | ${operations.toLocaleString('en')} | ${typeof lines === 'number' ? lines.toLocaleString('en') : 'cached'} | ${mb(statSync(file).size)} | ${wall.toFixed(1)} s | ${(user + sys).toFixed(1)} s | ${perS(wall)} | ${perS(user + sys)} | ${mb(rssKb * 1024)} | ${verdict} (exit ${r.status}) |`);
  }
}
console.log(`load average after: ${load()}`);
