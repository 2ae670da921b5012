import { existsSync, readFileSync } from 'node:fs';
import { FIDELITY_EXPLANATIONS } from '../../real/twin/fidelity-explanations.js';
import { FIDELITY_ROWS, formatFidelity, measureFidelity, mergeFidelity, type FidelityMeasurement } from '../../real/twin/fidelity.js';
import { CliError } from '../cli-error.js';
import { prepareOutput, writeOutput } from '../output.js';

interface FidelityFlags {
  out: string;
  /** The measurement as JSON (default: the output's name with .json): what `--only` merges into. */
  data?: string;
  runs: number;
  simSeeds: number;
  budgetMinutes: number;
  only?: string;
}

function readEarlier(path: string): FidelityMeasurement | null {
  if (!existsSync(path)) return null;
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

/**
 * Measures the fidelity rows and writes the table and its data; with --only, the rows measured
 * replace theirs in the earlier data and the table shows all. Exit 0: a disagreement is a finding.
 */
export async function fidelityCommand(flags: FidelityFlags): Promise<number> {
  if (flags.only !== undefined && !FIDELITY_ROWS.some((r) => r.name.includes(flags.only!))) {
    throw new CliError(`--only ${flags.only}: no fidelity row's name contains it; the rows:\n  ${FIDELITY_ROWS.map((r) => r.name).join('\n  ')}`);
  }
  const dataPath = flags.data ?? `${flags.out.replace(/\.md$/, '')}.json`;
  const earlier = flags.only !== undefined ? readEarlier(dataPath) : null;
  prepareOutput(flags.out);
  prepareOutput(dataPath);
  const fresh = await measureFidelity({
    realRuns: flags.runs,
    simSeeds: flags.simSeeds,
    budgetMs: flags.budgetMinutes * 60_000,
    ...(flags.only !== undefined ? { only: flags.only } : {}),
    onProgress: (line) => console.error(line),
  });
  const m = mergeFidelity(earlier, fresh);
  writeOutput(dataPath, `${JSON.stringify(m, null, 1)}\n`);
  writeOutput(flags.out, formatFidelity(m, FIDELITY_EXPLANATIONS));
  console.log(`fidelity table written to ${flags.out} (${fresh.rows.length} row(s) measured, ${m.rows.length} in the table; data in ${dataPath})`);
  return 0;
}
