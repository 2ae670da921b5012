import { FIDELITY_EXPLANATIONS } from '../../real/twin/fidelity-explanations.js';
import { formatFidelity, measureFidelity } from '../../real/twin/fidelity.js';
import { prepareOutput, writeOutput } from '../output.js';

export interface FidelityFlags {
  out: string;
  runs: number;
  simSeeds: number;
  budgetMinutes: number;
  only?: string;
}

/** Measures the fidelity rows and writes docs/FIDELITY.md; exit 0 (a disagreement is a finding, not a failure). */
export async function fidelityCommand(flags: FidelityFlags): Promise<number> {
  prepareOutput(flags.out);
  const m = await measureFidelity({
    realRuns: flags.runs,
    simSeeds: flags.simSeeds,
    budgetMs: flags.budgetMinutes * 60_000,
    ...(flags.only !== undefined ? { only: flags.only } : {}),
    onProgress: (line) => console.error(line),
  });
  writeOutput(flags.out, formatFidelity(m, FIDELITY_EXPLANATIONS));
  console.log(`fidelity table written to ${flags.out} (${m.rows.length} rows, ${m.rows.reduce((n, r) => n + r.realRuns, 0)} real runs)`);
  return 0;
}
