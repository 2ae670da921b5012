/**
 * What running the gate's scripts in Redis's Lua costs (npm run bench:explore-scripts), not a test: the
 * example gate's explore line (examples/github-actions-gate.yml, around examples/gate-setup.json) over
 * the same seeds through the compiled bin, once per `--scripts` mode — twin (JavaScript twins only),
 * mixed (the default: every 4th seed in compare mode), compare (every seed) and lua (every seed in
 * Lua, no twin) — one process each, one thread, in turn, twice (alternating, the medians kept). Every
 * mode is checked to explore the same seeds with the same trace hashes.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { SeedOutcome } from '../src/sim/campaign/explore.js';

const RUNS = Number(process.env.BENCH_GATE_RUNS ?? 12);
const ROUNDS = 2;
const MODES = ['twin', 'mixed', 'compare', 'lua'] as const;
const workflow = readFileSync('examples/github-actions-gate.yml', 'utf8');
const line = workflow.split('\n').map((l) => l.trim()).find((l) => l.startsWith('- run: npx dynoq explore'))!;
const gateArgs = line.replace('- run: npx dynoq explore ', '').split(/\s+/);
// The gate's own flags, but RUNS seeds and no --time or --out of its own.
const args: string[] = [];
for (let i = 0; i < gateArgs.length; i++) {
  if (['--runs', '--time', '--out'].includes(gateArgs[i]!)) i++;
  else args.push(gateArgs[i]!);
}

function run(mode: (typeof MODES)[number]): { seconds: number; hashes: string[] } {
  const out = mkdtempSync(join(tmpdir(), 'dynoq-bench-gate-'));
  const started = performance.now();
  const r = spawnSync(process.execPath, ['bin/dynoq.mjs', 'explore', ...args, '--runs', String(RUNS), '--out', out, '--scripts', mode], { encoding: 'utf8' });
  const seconds = (performance.now() - started) / 1_000;
  if (r.status !== 0 && r.status !== 1) throw new Error(`explore --scripts ${mode} exited ${r.status}: ${r.stderr}`);
  const hashes = readFileSync(join(out, 'explore.jsonl'), 'utf8').trim().split('\n').map((l) => {
    const o = JSON.parse(l) as SeedOutcome;
    return `${o.seed} ${o.traceHash}`;
  });
  rmSync(out, { recursive: true, force: true });
  return { seconds, hashes };
}

console.log(`load average before ${loadavg().map((x) => x.toFixed(2)).join(' ')}`);
console.log(`the example gate's explore line, ${RUNS} seeds (gate-0…gate-${RUNS - 1}), compiled bin, 1 thread; medians of ${ROUNDS} alternating rounds`);
const times: Record<string, number[]> = Object.fromEntries(MODES.map((m) => [m, []]));
let reference: string[] | null = null;
for (let round = 0; round < ROUNDS; round++) {
  for (const mode of MODES) {
    const r = run(mode);
    times[mode]!.push(r.seconds);
    reference ??= r.hashes;
    if (JSON.stringify(r.hashes) !== JSON.stringify(reference)) throw new Error(`--scripts ${mode} explored other seeds or traces than twin`);
  }
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const twin = median(times.twin!);
console.log('| --scripts | what runs in Lua | wall time | runs/s | × twin |');
console.log('|---|---|---|---|---|');
const what = { twin: 'nothing (JavaScript twins)', mixed: 'every 4th seed, each twin call compared (the default)', compare: 'every seed, each twin call compared', lua: 'every seed, no twin' } as const;
for (const mode of MODES) {
  const t = median(times[mode]!);
  console.log(`| ${mode} | ${what[mode]} | ${t.toFixed(1)} s | ${(RUNS / t).toFixed(2)} | ${(t / twin).toFixed(2)} |`);
}
console.log(`every mode explored the same ${RUNS} seeds with the same trace hashes`);
console.log(`load average after ${loadavg().map((x) => x.toFixed(2)).join(' ')}`);
