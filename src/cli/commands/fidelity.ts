import { spawn } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, mkdtempSync, openSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { GuaranteesDataError, parseGuaranteesData, type GuaranteesData } from '../../sim/campaign/guarantees-data.js';
import { FIDELITY_EXPLANATIONS } from '../../real/twin/fidelity-explanations.js';
import { FIDELITY_ROWS, FidelityPartsError, measureFidelity, mergeFidelity, onlyMatches, sumFidelity, type FidelityMeasurement } from '../../real/twin/fidelity.js';
import { formatFidelity } from '../../real/twin/fidelity-page.js';
import { CliError } from '../cli-error.js';
import { prepareOutput, writeOutput } from '../output.js';

interface FidelityFlags {
  out: string;
  /** The measurement as JSON (default: the output's name with .json): what `--only` and `--merge` merge into. */
  data?: string;
  runs: number;
  simSeeds: number;
  budgetMinutes: number;
  only?: string;
  /** A folder shared by processes that split one run between them: each takes units of work by creating a file there. */
  claims?: string;
  /** Processes to split the run between (each its own `--claims` share), added up at the end. */
  jobs?: number;
  /** Measurements of parts of one run (`--claims`) to add up into the table, instead of measuring. */
  merge?: string[];
  /** The published guarantees data whose cells the table checks (default: GUARANTEES.json beside the output). */
  published?: string;
}

/** The published guarantees data, or null when there is none at the default place. */
function readPublished(flags: FidelityFlags): GuaranteesData | null {
  const path = flags.published ?? join(dirname(flags.out), 'GUARANTEES.json');
  if (!existsSync(path)) {
    if (flags.published !== undefined) throw new CliError(`--published ${path}: no such file`);
    return null;
  }
  try {
    return parseGuaranteesData(readFileSync(path, 'utf8'), path);
  } catch (err) {
    if (err instanceof GuaranteesDataError) throw new CliError(`--published: ${err.message}`);
    throw err;
  }
}

function readMeasurement(path: string): FidelityMeasurement {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(path, 'utf8'));
  } catch (err) {
    throw new CliError(`${path}: not a fidelity measurement (${err instanceof Error ? err.message : String(err)}); remove it or name another with --data`);
  }
  const m = parsed as Partial<FidelityMeasurement> | null;
  if (!m || !Array.isArray(m.rows) || typeof m.options !== 'object' || m.rows.some((r) => typeof r?.row !== 'string' || typeof r.simulated !== 'object' || typeof r.real !== 'object')) {
    throw new CliError(`${path}: not a fidelity measurement (rows and options expected); remove it or name another with --data`);
  }
  return m as FidelityMeasurement;
}

const readEarlier = (path: string): FidelityMeasurement | null => (existsSync(path) ? readMeasurement(path) : null);

/**
 * A unit of work is this process's when it creates the unit's file in `dir` first (O_EXCL: exactly
 * one process wins, whatever the others do at the same moment).
 */
function claimsIn(dir: string): (unit: string) => boolean {
  mkdirSync(dir, { recursive: true });
  return (unit) => {
    try {
      closeSync(openSync(join(dir, encodeURIComponent(unit)), 'wx'));
      return true;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
      throw err;
    }
  };
}

function write(flags: FidelityFlags, dataPath: string, m: FidelityMeasurement): void {
  writeOutput(dataPath, `${JSON.stringify(m, null, 1)}\n`);
  writeOutput(flags.out, formatFidelity(m, FIDELITY_EXPLANATIONS, readPublished(flags)));
}

/** The parts added up (only the rows `--only` picks) over the earlier data (rows no part measured are kept from it). */
function mergeParts(flags: FidelityFlags, dataPath: string, partPaths: readonly string[], keepEarlier: boolean): FidelityMeasurement {
  let summed: FidelityMeasurement;
  try {
    summed = sumFidelity(partPaths.map(readMeasurement));
  } catch (err) {
    if (err instanceof FidelityPartsError) throw new CliError(`--merge: ${err.message}`);
    throw err;
  }
  const picked = { ...summed, rows: summed.rows.filter((r) => onlyMatches(flags.only, r.row)) };
  const m = mergeFidelity(keepEarlier ? readEarlier(dataPath) : null, picked);
  write(flags, dataPath, m);
  return m;
}

/** The same command in `jobs` child processes sharing one claims folder; resolves with each one's exit code. */
async function runJobs(flags: FidelityFlags, jobs: number, dir: string): Promise<{ parts: string[]; codes: number[] }> {
  const parts = Array.from({ length: jobs }, (_, k) => join(dir, `part-${k + 1}.json`));
  const codes = await Promise.all(
    parts.map(
      (part, k) =>
        new Promise<number>((resolve) => {
          const args = [...process.execArgv, process.argv[1]!, 'fidelity', '--claims', join(dir, 'claims'), '--data', part, '--out', part.replace(/\.json$/, '.md')];
          args.push('--runs', String(flags.runs), '--sim-seeds', String(flags.simSeeds), '--budget-minutes', String(flags.budgetMinutes));
          if (flags.only !== undefined) args.push('--only', flags.only);
          const child = spawn(process.execPath, args, { stdio: ['ignore', 'ignore', 'pipe'] });
          let rest = '';
          child.stderr.setEncoding('utf8');
          child.stderr.on('data', (chunk: string) => {
            const lines = (rest + chunk).split('\n');
            rest = lines.pop()!;
            for (const line of lines) console.error(`[job ${k + 1}] ${line}`);
          });
          child.on('close', (code) => {
            if (rest !== '') console.error(`[job ${k + 1}] ${rest}`);
            resolve(code ?? 1);
          });
        }),
    ),
  );
  return { parts: parts.filter((p) => existsSync(p)), codes };
}

/**
 * Measures the fidelity rows and writes the table and its data; with --only, the rows measured
 * replace theirs in the earlier data and the table shows all. With --claims the process measures its
 * share of a run split between processes (its data file is written after every real run); --merge adds
 * such shares up; --jobs does both. Exit 0: a disagreement is a finding; 3 when a job died.
 */
export async function fidelityCommand(flags: FidelityFlags): Promise<number> {
  if (flags.only !== undefined && !FIDELITY_ROWS.some((r) => onlyMatches(flags.only, r.name))) {
    throw new CliError(`--only ${flags.only}: no fidelity row's name contains it; the rows:\n  ${FIDELITY_ROWS.map((r) => r.name).join('\n  ')}`);
  }
  if (flags.merge !== undefined && (flags.jobs !== undefined || flags.claims !== undefined)) throw new CliError('--merge adds up measurements already made: not with --jobs or --claims');
  if (flags.jobs !== undefined && flags.claims !== undefined) throw new CliError('--jobs makes its own claims folder: not with --claims');
  const dataPath = flags.data ?? `${flags.out.replace(/\.md$/, '')}.json`;
  prepareOutput(flags.out);
  prepareOutput(dataPath);
  if (flags.merge !== undefined) {
    const m = mergeParts(flags, dataPath, flags.merge, true);
    console.log(`fidelity table written to ${flags.out} (${flags.merge.length} part(s) added up, ${m.rows.length} row(s) in the table; data in ${dataPath})`);
    return 0;
  }
  if (flags.jobs !== undefined) {
    const dir = mkdtempSync(join(tmpdir(), 'dynoq-fidelity-'));
    const { parts, codes } = await runJobs(flags, flags.jobs, dir);
    const m = mergeParts(flags, dataPath, parts, flags.only !== undefined);
    const died = codes.map((c, k) => ({ c, k })).filter(({ c }) => c !== 0);
    console.log(`fidelity table written to ${flags.out} (${flags.jobs} jobs, ${m.rows.length} row(s) in the table; data in ${dataPath}; the jobs' parts in ${dir})`);
    if (died.length > 0) {
      console.error(`${died.map(({ c, k }) => `job ${k + 1} exited with ${c}`).join('; ')}: the table holds what every job measured up to its last real run`);
      return 3;
    }
    return 0;
  }
  const earlier = flags.only !== undefined ? readEarlier(dataPath) : null;
  const fresh = await measureFidelity({
    realRuns: flags.runs,
    simSeeds: flags.simSeeds,
    budgetMs: flags.budgetMinutes * 60_000,
    ...(flags.only !== undefined ? { only: flags.only } : {}),
    ...(flags.claims !== undefined ? { claim: claimsIn(flags.claims), onCheckpoint: (part: FidelityMeasurement) => writeOutput(dataPath, `${JSON.stringify(part, null, 1)}\n`) } : {}),
    onProgress: (line) => console.error(line),
  });
  // A share of a split run is a part: it is written as measured, to be added up by --merge.
  const m = flags.claims !== undefined ? fresh : mergeFidelity(earlier, fresh);
  write(flags, dataPath, m);
  console.log(`fidelity table written to ${flags.out} (${fresh.rows.length} row(s) measured, ${m.rows.length} in the table; data in ${dataPath})`);
  return 0;
}
