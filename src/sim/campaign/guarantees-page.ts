import { PROPERTIES, PROPERTIES_WORST_FIRST, PROPERTY_NAMES } from '../../model/properties.js';
import { FAULT_FAMILIES } from '../faults/index.js';
import { SAME_RUNS, type FaultDraw } from '../run/configurations.js';
import { PROFILES } from '../settings/workload-profile.js';
import { decide, PROPERTY_CODES, RECOMMENDATION_RULE, topologyColumns, type Decision, type MatrixCell, type MatrixLine } from './decision.js';
import { adviceFor, type GuaranteesData } from './guarantees-data.js';
import { wilson } from './guarantees.js';
import { optionsText } from './setup-facets.js';

/** docs/GUARANTEES.md: the decision page, rendered from the published data alone. */

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;
const pct = (x: number) => `${(100 * x).toFixed(x < 0.1 ? 1 : 0)} %`;

/** A cell of the matrix in a few characters (the legend says how to read them). */
export function cellMark(cell: MatrixCell | undefined): string {
  if (!cell) return '·';
  const inherited = cell.inheritedFrom ? ' ⁱ' : '';
  if (cell.verdict === 'not exercised') return `○${inherited}`;
  if (cell.verdict === 'held') return `✓ ≤${pct(cell.rate)}${inherited}`;
  return `✗ ${pct(cell.rate)} ${cell.violated.map((p) => PROPERTY_CODES[p]).join('·')}${inherited}`;
}

export function drawLabel(d: FaultDraw): string {
  return d === 'none' ? 'no faults' : d;
}

function drawMeaning(d: FaultDraw): string {
  if (d === 'none') return 'no faults';
  if (d === 'swarm') return 'faults of every family applicable to the topology, together';
  return FAULT_FAMILIES[d].description;
}

/** What to do, numbered once for the whole page in order of first use. */
class AdviceLegend {
  private readonly numbers = new Map<string, number>();
  constructor(private readonly data: GuaranteesData) {}
  ref(key: string): string {
    const text = adviceFor(this.data, key);
    if (!text) return '';
    let n = this.numbers.get(text);
    if (n === undefined) {
      n = this.numbers.size + 1;
      this.numbers.set(text, n);
    }
    return ` [what to do: ${n}]`;
  }
  lines(): string[] {
    return [...this.numbers].map(([text, n]) => `${n}. ${text}`);
  }
}

/** Why a cell failed, in a line: each violated property with its count, then the mechanisms behind them. */
function whyLines(data: GuaranteesData, line: MatrixLine, d: FaultDraw, legend: AdviceLegend, options: { mechanisms: number; closest?: boolean }): string[] {
  const cell = line.cells[d]!;
  const props = cell.violated.map((p) => `${PROPERTIES[p].label} ${cell.counts[p].violated}/${cell.counts[p].exercised} runs`).join(', ');
  const scenarioSetups = new Set(data.rows.filter((r) => cell.configurations.includes(r.name)).map((r) => r.scenarioSetup));
  const out = [options.closest ? `- **${drawLabel(d)}** — closest: \`${line.setup}\`, ${props}. Why:` : `- **${drawLabel(d)}** — ${props}. Why:`];
  for (const m of cell.mechanisms.slice(0, options.mechanisms)) {
    const scenario = data.scenarios.find((s) => s.key === m.key && scenarioSetups.has(s.setup));
    out.push(`  - \`${m.key}\` (${plural(m.runs, 'run')})${scenario ? `, shown by [\`${scenario.file}\`](../${scenario.file})` : ''}${legend.ref(m.key)}`);
  }
  const more = cell.mechanisms.length - options.mechanisms;
  if (more > 0) out.push(`  - and ${plural(more, 'more mechanism')} ([guarantees.html](guarantees.html))`);
  return out;
}

function recommendedSection(data: GuaranteesData, decision: Decision, line: MatrixLine, legend: AdviceLegend): string[] {
  const measured = decision.columns.filter((d) => line.cells[d]);
  const held = measured.filter((d) => line.cells[d]!.verdict === 'held');
  const violated = measured.filter((d) => line.cells[d]!.verdict === 'violated');
  const unexercised = measured.filter((d) => line.cells[d]!.verdict === 'not exercised');
  const ofTopology = topologyColumns(decision, line.facets.topology);
  const notMeasured = ofTopology.filter((d) => !line.cells[d]);
  const noneOfTopology = decision.columns.filter((d) => !ofTopology.includes(d));
  const out = [
    `### ${line.facets.topology}: \`${line.setup}\``,
    '',
    `${line.facets.mode} mode, ${optionsText(line.facets)}. Holds every property it exercised under ${held.length} of the ${decision.columns.length} fault draws (${held.map(drawLabel).join(', ') || 'none'}); ${line.propertiesHeld} (draw, property) pairs held.`,
    '',
    `Draws under which each property held, worst first: ${PROPERTIES_WORST_FIRST.map((p) => `${PROPERTIES[p].label} ${line.drawsHeldBy[p]}`).join(', ')} (of ${decision.columns.length}).`,
  ];
  if (violated.length > 0) out.push('', 'What it still cannot survive, and why (mechanisms classified from the runs):', '', ...violated.flatMap((d) => whyLines(data, line, d, legend, { mechanisms: 3 })));
  if (unexercised.length > 0) out.push('', `Measured but not exercised (the faults never changed anything): ${unexercised.map(drawLabel).join(', ')}.`);
  if (notMeasured.length > 0) out.push('', `Not measured under: ${notMeasured.map(drawLabel).join(', ')} (the table has no row for it: no verdict, counted as not held).`);
  if (noneOfTopology.length > 0) out.push('', `No ${line.facets.topology} set-up is measured under: ${noneOfTopology.map((d) => (d !== 'none' && d !== 'swarm' && FAULT_FAMILIES[d].requiresTopology && FAULT_FAMILIES[d].requiresTopology !== line.facets.topology ? `${drawLabel(d)} (${FAULT_FAMILIES[d].requiresTopology} only)` : drawLabel(d))).join(', ')}.`);
  return [...out, ''];
}

/** The closest set-up under a draw nobody survives: the fewest violated properties, then the lowest rate. */
function closest(decision: Decision, d: FaultDraw): MatrixLine | undefined {
  return decision.lines
    .filter((l) => l.cells[d]?.verdict === 'violated')
    .sort((a, b) => a.cells[d]!.violated.length - b.cells[d]!.violated.length || a.cells[d]!.rate - b.cells[d]!.rate || (a.setup < b.setup ? -1 : 1))[0];
}

/** The rows that stand for two set-ups: one line per dropped set-up and reason, naming its draws. */
function sameRunsLines(): string[] {
  const groups = new Map<string, { setup: string; measuredAs: string; why: string; draws: FaultDraw[] }>();
  for (const s of SAME_RUNS) {
    const key = `${s.setup}\n${s.measuredAs}\n${s.why}`;
    const g = groups.get(key) ?? { setup: s.setup, measuredAs: s.measuredAs, why: s.why, draws: [] };
    g.draws.push(s.faults);
    groups.set(key, g);
  }
  return [...groups.values()].map((g) => `- Not measured separately, the same runs (ⁱ): \`${g.setup}\` under ${g.draws.map(drawLabel).join(' and ')} is \`${g.measuredAs}\`'s row: ${g.why}.`);
}

/** The whole page. */
export function guaranteesPage(data: GuaranteesData): string {
  const decision = decide(data);
  const legend = new AdviceLegend(data);
  const profiles = [...new Set(data.rows.map((r) => r.profile))];
  const lines: string[] = [
    '# What to run: the measured guarantees',
    '',
    `Generated by \`${data.command}\`${data.timing ? ` (${data.timing})` : ''} from its data, [GUARANTEES.json](GUARANTEES.json); do not edit by hand (\`dynoq guarantees --render-from docs/GUARANTEES.json\` renders this page and [guarantees.html](guarantees.html) again without running anything). Every cell is seeded simulation runs judged by the history checker ([CHECKER.md](CHECKER.md)); every property of every configuration, with its mechanisms, is in [guarantees.html](guarantees.html) (one self-contained page: sort, filter by topology, mode, fault and property).`,
    '',
    '## The decision matrix',
    '',
    'A line is a set-up: the topology, the queue mode and the options that move the verdicts (Dynomite\'s consistency, server or client time, durable writes, persistence, a client that fails over to the next zone). A column is a fault draw. A cell pools every run of that set-up under that draw' +
      (profiles.length > 1 ? ` over the workload profiles (${profiles.map((p) => `\`${p}\`: ${PROFILES[p as keyof typeof PROFILES]?.description ?? p}`).join('; ')})` : '') +
      ':',
    '',
    '- `✓ ≤b` held: every property the runs exercised held in every run; b is the largest 95 % upper bound of a violation rate among them (the least exercised property sets it).',
    '- `✗ r CODES` violated: the properties named by their codes were broken; r is the largest violation rate among them (violating runs out of the runs that exercised the property).',
    '- `○` not exercised: the faults never changed anything, or no run could have broken a property: no verdict.  `·` not measured: the table has no row for it.',
    '- `ⁱ` inherited: a set-up with persistence is measured only under the families where persistence acts; under the others its runs are those of the same set-up without persistence, whose cell it shows. A set-up whose runs under a draw are another\'s, trace for trace, shows that one\'s cell there too (listed under "How sure the table is").',
    '',
    `Codes: ${PROPERTY_NAMES.map((p) => `**${PROPERTY_CODES[p]}** ${PROPERTIES[p].label} (${PROPERTIES[p].means})`).join('; ')}.`,
    '',
    `| topology | mode | options | ${decision.columns.map(drawLabel).join(' | ')} |`,
    `|---|---|---|${decision.columns.map(() => '---').join('|')}|`,
  ];
  for (const l of decision.lines) {
    const mark = decision.recommended.includes(l) ? ' **(recommended)**' : '';
    lines.push(`| ${l.facets.topology} | ${l.facets.mode} | ${optionsText(l.facets)}${mark} | ${decision.columns.map((d) => cellMark(l.cells[d])).join(' | ')} |`);
  }
  lines.push('', `Fault draws: ${decision.columns.map((d) => `**${drawLabel(d)}**: ${drawMeaning(d)}`).join('; ')}.`, '');

  lines.push('## What to use', '', `The recommended set-up of each topology is computed from the matrix: ${RECOMMENDATION_RULE}. Lines are listed in that order.`, '');
  for (const l of decision.recommended) lines.push(...recommendedSection(data, decision, l, legend));

  if (decision.unsurvived.length > 0) {
    lines.push('## Fault draws no set-up survives', '', 'Under these draws every measured set-up broke a property. The closest (fewest properties broken, then the lowest rate), and why:', '');
    for (const d of decision.unsurvived) {
      const best = closest(decision, d);
      if (!best) {
        lines.push(`- **${drawLabel(d)}** — not exercised by any set-up: no verdict.`);
        continue;
      }
      lines.push(...whyLines(data, best, d, legend, { mechanisms: 2, closest: true }));
    }
    lines.push('');
  }

  const seeds = data.seeds;
  lines.push(
    '## How sure the table is',
    '',
    `- Runs: ${seeds} seeds (\`g0\` … \`g${seeds - 1}\`) per configuration; a cell pools ${decision.runsPerCell.min === decision.runsPerCell.max ? decision.runsPerCell.min : `${decision.runsPerCell.min}–${decision.runsPerCell.max}`} runs. The same seeds always give the same table.`,
    `- Intervals: 95 % Wilson score intervals over the runs that exercised a property (could have broken it, [CHECKER.md](CHECKER.md) §5). A held cell is evidence, not proof: with none violated in n runs the upper bound is about 3.8 / n (${pct(wilson(0, decision.runsPerCell.max).high)} for ${decision.runsPerCell.max} runs).`,
    '- Every number is the simulator\'s. [FIDELITY.md](FIDELITY.md) runs rows of this table as real twins (real redis-server, Sentinel and Dynomite processes, the same checker) and says per property where reality agrees, is gentler or is harsher.',
    '- Any run replays with `dynoq sim --configuration NAME --seed SEED` (names and first failing seeds are in [guarantees.html](guarantees.html)).',
    ...sameRunsLines(),
    '',
  );
  const advice = legend.lines();
  if (advice.length > 0) lines.push('## What to do', '', 'Advice for the mechanisms above, each printed once:', '', ...advice, '');
  return lines.join('\n');
}

/** The recommendation in a few lines: for the README's first screen and `npm start`. */
export interface WhatToUse {
  readonly topologies: readonly {
    readonly topology: string;
    readonly setup: string;
    readonly summary: string;
    readonly held: readonly FaultDraw[];
    /** Draws under which it lost no acknowledged message (at-least-once exercised and held). */
    readonly keeps: readonly FaultDraw[];
    /** Draws it was measured under. */
    readonly measured: number;
    /** Draws some set-up of its topology was measured under and it was not (no row, none inherited). */
    readonly notMeasured: readonly FaultDraw[];
    /** Draws under which it lost an acknowledged message (at-least-once violated). */
    readonly loses: readonly FaultDraw[];
    /** Draws under which it broke some other property only. */
    readonly breaks: readonly FaultDraw[];
  }[];
  readonly unsurvived: readonly FaultDraw[];
  readonly seeds: number;
  readonly runsPerCell: { readonly min: number; readonly max: number };
  /** The 95 % upper bound of a violation rate after none in the fewest runs a cell pools. */
  readonly heldBound: number;
}

export function whatToUse(data: GuaranteesData): WhatToUse {
  const decision = decide(data);
  return {
    topologies: decision.recommended.map((l) => {
      const measured = decision.columns.filter((d) => l.cells[d]);
      const violated = measured.filter((d) => l.cells[d]!.verdict === 'violated');
      return {
        topology: l.facets.topology,
        setup: l.setup,
        summary: `${l.facets.mode} mode, ${optionsText(l.facets)}`,
        held: measured.filter((d) => l.cells[d]!.verdict === 'held'),
        keeps: measured.filter((d) => l.cells[d]!.held.includes('atLeastOnce')),
        measured: measured.length,
        notMeasured: topologyColumns(decision, l.facets.topology).filter((d) => !l.cells[d]),
        loses: violated.filter((d) => l.cells[d]!.violated.includes('atLeastOnce')),
        breaks: violated.filter((d) => !l.cells[d]!.violated.includes('atLeastOnce')),
      };
    }),
    unsurvived: decision.unsurvived,
    seeds: data.seeds,
    runsPerCell: decision.runsPerCell,
    heldBound: wilson(0, decision.runsPerCell.min).high,
  };
}

const list = (draws: readonly FaultDraw[]) => (draws.length > 0 ? draws.map(drawLabel).join(', ') : 'none');
const runsPerCell = (w: WhatToUse) => (w.runsPerCell.min === w.runsPerCell.max ? `${w.runsPerCell.min}` : `${w.runsPerCell.min}–${w.runsPerCell.max}`);

/** The recommendation as lines of plain text (no Markdown): each topology, what nobody survives, how sure. */
export function whatToUseLines(w: WhatToUse): string[] {
  return [
    ...w.topologies.map(
      (t) =>
        `${t.topology}: ${t.summary} (${t.setup}) loses no acknowledged message under ${t.keeps.length} of the ${t.measured} fault draws it was measured under (${list(t.keeps)}) and holds every property under ${t.held.length} (${list(t.held)}); it loses acknowledged messages under ${list(t.loses)}${t.breaks.length > 0 ? `, and breaks another property under ${list(t.breaks)}` : ''}${t.notMeasured.length > 0 ? `; not measured under ${list(t.notMeasured)}` : ''}.`,
    ),
    `No set-up holds every property under: ${list(w.unsurvived)}.`,
    `How sure: ${w.seeds} seeds per configuration, ${runsPerCell(w)} simulated runs per cell; a held cell's violation rate is at most ${pct(w.heldBound)} (95 % Wilson upper bound).`,
  ];
}

/** The README's block: the same lines as a Markdown list under a heading line. */
export function whatToUseMarkdown(data: GuaranteesData): string {
  return [
    'What to use, as measured by the simulator ([docs/GUARANTEES.md](docs/GUARANTEES.md), the recommended set-up per topology; [docs/guarantees.html](docs/guarantees.html) for every cell):',
    '',
    ...whatToUseLines(whatToUse(data)).map((l) => `- ${l}`),
  ].join('\n');
}
