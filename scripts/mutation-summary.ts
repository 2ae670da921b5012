/**
 * Summarises a Stryker JSON report (reports/mutation/mutation.json, written by `npx stryker run`) as
 * the Markdown tables in docs/MUTATION.md: the score by file, then every mutant that was not detected.
 * Usage: npx tsx scripts/mutation-summary.ts [report.json]
 */
import { readFileSync } from 'node:fs';

interface Mutant {
  readonly mutatorName: string;
  readonly replacement?: string;
  readonly status: string;
  readonly location: { readonly start: { readonly line: number } };
}
interface Report {
  readonly files: Record<string, { readonly source: string; readonly mutants: readonly Mutant[] }>;
}

const report = JSON.parse(readFileSync(process.argv[2] ?? 'reports/mutation/mutation.json', 'utf8')) as Report;

/** Stryker's definitions: timeouts count as detected; ignored and compile errors are not mutants. */
function tally(mutants: readonly Mutant[]) {
  const n = (status: string) => mutants.filter((m) => m.status === status).length;
  const killed = n('Killed');
  const timeout = n('Timeout');
  const survived = n('Survived');
  const noCoverage = n('NoCoverage');
  const valid = killed + timeout + survived + noCoverage;
  return { valid, killed, timeout, survived, noCoverage, ignored: n('Ignored') };
}

const pct = (part: number, whole: number) => (whole === 0 ? '—' : `${((100 * part) / whole).toFixed(1)} %`);
const row = (name: string, t: ReturnType<typeof tally>) =>
  `| ${name} | ${t.valid} | ${t.killed} | ${t.timeout} | ${t.survived} | ${t.noCoverage} | ${t.ignored} | ${pct(t.killed + t.timeout, t.valid)} |`;

const files = Object.entries(report.files).sort(([a], [b]) => a.localeCompare(b));
const all = tally(files.flatMap(([, f]) => f.mutants));
const lines = [
  '| file | mutants | killed | timed out | survived | no coverage | ignored | score |',
  '|---|---|---|---|---|---|---|---|',
  ...files.map(([name, f]) => row(name, tally(f.mutants))),
  row('**all**', all).replace(/\| ([\d.]+ %) \|$/, '| **$1** |'),
  '',
  'Not detected:',
  '',
  '| where | mutator | status | replaced by |',
  '|---|---|---|---|',
];
for (const [name, f] of files) {
  for (const m of f.mutants) {
    if (m.status !== 'Survived' && m.status !== 'NoCoverage') continue;
    const replacement = (m.replacement ?? '').replace(/\s+/g, ' ').replace(/\|/g, '\\|').slice(0, 70);
    lines.push(`| ${name}:${m.location.start.line} | ${m.mutatorName} | ${m.status} | \`${replacement}\` |`);
  }
}
console.log(lines.join('\n'));
