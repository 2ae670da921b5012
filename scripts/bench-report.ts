/**
 * Regenerates the measured blocks of docs/BENCHMARKS.md in one command (npm run bench:report):
 * runs each benchmark as its own process, one after the other, and writes its output between the
 * markers `<!-- measured:NAME -->` and `<!-- /measured:NAME -->` with the machine, the date and the
 * load average before and after (these machines are shared: a ratio is only as good as the idle
 * cores). The prose around the blocks is not touched.
 *
 *   npx tsx scripts/bench-report.ts [--only sim,sim-dist,sim-floor,scripts,explore,explore-scripts,queues] [--file docs/BENCHMARKS.md]
 */
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism, loadavg, totalmem } from 'node:os';

interface Bench {
  readonly name: string;
  readonly title: string;
  readonly setup?: readonly string[];
  readonly command: readonly string[];
}

const BENCHES: readonly Bench[] = [
  { name: 'sim', title: 'Simulator (`bench/sim.ts`)', command: [process.execPath, '--expose-gc', '--import', 'tsx', 'bench/sim.ts'] },
  {
    name: 'sim-dist',
    title: 'Simulator from the compiled `dist/` (`bench/sim-compiled.ts`)',
    setup: ['npm', 'run', 'build'],
    command: [process.execPath, '--import', 'tsx', 'bench/sim-compiled.ts'],
  },
  {
    name: 'sim-floor',
    title: 'The floor under the simulator\'s workloads: their keyspace commands and kernel events alone (`bench/sim-floor.ts`)',
    command: ['npm', 'run', '--silent', 'bench:sim-floor'],
  },
  { name: 'scripts', title: 'Script calls on one in-process keyspace, twin vs exact Lua (`bench/scripts.ts`)', command: [process.execPath, '--import', 'tsx', 'bench/scripts.ts'] },
  { name: 'explore', title: 'Harness throughput, 1 thread vs all (`bench/explore.ts`)', command: [process.execPath, '--import', 'tsx', 'bench/explore.ts'] },
  {
    name: 'explore-scripts',
    title: "The gate's scripts in Redis's Lua: twin vs mixed vs compare vs lua (`bench/explore-scripts.ts`)",
    setup: ['npm', 'run', 'build'],
    command: [process.execPath, '--import', 'tsx', 'bench/explore-scripts.ts'],
  },
  {
    name: 'queues',
    title: 'dynoq vs BullMQ on one redis-server (`bench/queues.ts`)',
    setup: ['npm', 'install', '--no-save', '--no-audit', '--no-fund', 'bullmq@^5'],
    command: [process.execPath, '--import', 'tsx', 'bench/queues.ts'],
  },
];

const arg = (name: string) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : undefined;
};
const file = arg('--file') ?? 'docs/BENCHMARKS.md';
const only = arg('--only')?.split(',');
const unknown = only?.filter((n) => !BENCHES.some((b) => b.name === n)) ?? [];
if (unknown.length > 0) {
  console.error(`bench-report: unknown benchmark(s) ${unknown.join(', ')} (known: ${BENCHES.map((b) => b.name).join(', ')})`);
  process.exit(2);
}

const load = () => loadavg().map((x) => x.toFixed(2)).join(' ');
const machine = `${availableParallelism()} cores, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.versions.node}`;

let doc = readFileSync(file, 'utf8');
for (const bench of BENCHES.filter((b) => !only || only.includes(b.name))) {
  if (bench.setup) {
    const s = spawnSync(bench.setup[0]!, bench.setup.slice(1), { stdio: 'inherit' });
    if (s.status !== 0) throw new Error(`${bench.setup.join(' ')} failed`);
  }
  const before = load();
  const started = Date.now();
  console.error(`bench-report: ${bench.name}: ${bench.command.slice(1).join(' ')} …`);
  const r = spawnSync(bench.command[0]!, bench.command.slice(1), { encoding: 'utf8', maxBuffer: 64 * 2 ** 20 });
  if (r.status !== 0) {
    console.error(r.stdout, r.stderr);
    throw new Error(`${bench.name}: exited ${r.status}`);
  }
  const seconds = ((Date.now() - started) / 1_000).toFixed(0);
  const block = [
    `<!-- measured:${bench.name} -->`,
    `**${bench.title}** — \`npm run bench:report -- --only ${bench.name}\`, ${new Date().toISOString().slice(0, 10)}, ${machine}; ${seconds} s; load average before ${before}, after ${load()}.`,
    '',
    '```text',
    r.stdout.trimEnd(),
    '```',
    `<!-- /measured:${bench.name} -->`,
  ].join('\n');
  const marked = new RegExp(`<!-- measured:${bench.name} -->[\\s\\S]*?<!-- /measured:${bench.name} -->`);
  doc = marked.test(doc) ? doc.replace(marked, () => block) : `${doc.trimEnd()}\n\n${block}\n`;
  writeFileSync(file, doc);
  console.error(`bench-report: ${bench.name} written to ${file}`);
}
