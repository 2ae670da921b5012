import { PROPERTIES, type PropertyName } from '../../model/properties.js';
import type { FaultDraw } from '../run/configurations.js';
import { decide } from './decision.js';
import type { GuaranteesData } from './guarantees-data.js';
import { drawLabel } from './guarantees-page.js';
import { optionsText } from './setup-facets.js';

/**
 * What the measured table says about a gate: for each fault family it explores, the set-up of its
 * topology that broke the gate's properties in the fewest runs; and the families under which no set-up
 * kept them in every run (a gate exploring one of those can go red on correct code).
 */
export function gateFamilies(data: GuaranteesData, gate: { topology: string; require: readonly PropertyName[]; faults: readonly FaultDraw[] }) {
  const decision = decide(data);
  const lines = decision.lines.filter((l) => l.facets.topology === gate.topology);
  const broken = (l: (typeof lines)[number], d: FaultDraw) => gate.require.reduce((n, p) => n + (l.cells[d]?.counts[p].violated ?? 0), 0);
  const best = (d: FaultDraw) => lines.filter((l) => l.cells[d] && gate.require.some((p) => l.cells[d]!.counts[p].exercised > 0)).sort((a, b) => broken(a, d) - broken(b, d))[0];
  const families = decision.columns.filter((d) => d !== 'none' && d !== 'swarm');
  return {
    judged: gate.faults.map((d) => {
      const l = best(d);
      if (!l) return { family: d, setup: null, runs: 0, broken: [] as { property: PropertyName; violated: number; exercised: number }[] };
      const cell = l.cells[d]!;
      return { family: d, setup: `${l.facets.mode}, ${optionsText(l.facets)}`, runs: cell.runs, broken: gate.require.filter((p) => cell.counts[p].violated > 0).map((p) => ({ property: p, ...cell.counts[p] })) };
    }),
    unkept: families.filter((d) => {
      const l = best(d);
      return l !== undefined && broken(l, d) > 0;
    }),
  };
}

/** The same as comment lines of a workflow file. */
export function gateFamiliesComment(data: GuaranteesData, gate: { topology: string; require: readonly PropertyName[]; faults: readonly FaultDraw[] }): string {
  const g = gateFamilies(data, gate);
  const per = g.judged.map((j) =>
    !j.setup
      ? `#   ${drawLabel(j.family)}: not measured on ${gate.topology}: no verdict`
      : j.broken.length === 0
        ? `#   ${drawLabel(j.family)}: kept in all ${j.runs} runs by ${j.setup}`
        : `#   ${drawLabel(j.family)}: even ${j.setup} broke ${j.broken.map((b) => `${PROPERTIES[b.property].label} in ${b.violated} of ${b.exercised} runs`).join(', ')}`,
  );
  return [
    `# The measured table (docs/GUARANTEES.md, ${data.seeds} seeds per configuration) on ${gate.topology}, for the --require properties, under each --faults family (the best set-up):`,
    ...per,
    `# No measured set-up kept them in every run under: ${g.unkept.map(drawLabel).join(', ') || 'none'} (why, and what to do: docs/GUARANTEES.md).`,
  ].join('\n');
}
