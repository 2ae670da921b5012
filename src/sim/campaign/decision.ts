import { PROPERTIES, PROPERTIES_WORST_FIRST, PROPERTY_NAMES, type PropertyName } from '../../model/properties.js';
import { FAULT_FAMILY_NAMES } from '../faults/index.js';
import { SAME_RUNS, type FaultDraw, type SameRuns } from '../run/configurations.js';
import type { GuaranteesData, PublishedRow } from './guarantees-data.js';
import { propertyOfMechanism } from './guarantees-data.js';
import { wilson } from './guarantees.js';
import { NO_PERSISTENCE, type SetupFacets } from './setup-facets.js';

/**
 * The decision matrix: one line per set-up, one column per fault draw, each cell the runs of that
 * set-up under that draw pooled over the workload profiles; and, per topology, the recommended set-up.
 */
export type Verdict = 'held' | 'violated' | 'not exercised';

export interface MatrixCell {
  readonly runs: number;
  readonly verdict: Verdict;
  /** held: the largest 95 % upper bound among the exercised properties; violated: the largest violation rate. */
  readonly rate: number;
  /** Violated properties, worst first. */
  readonly violated: readonly PropertyName[];
  /** Properties exercised and never violated. */
  readonly held: readonly PropertyName[];
  /** Per property: runs that violated it out of runs that exercised it. */
  readonly counts: Readonly<Record<PropertyName, { readonly violated: number; readonly exercised: number }>>;
  /** Mechanisms behind the violations, most runs first. */
  readonly mechanisms: readonly { readonly key: string; readonly runs: number; readonly property: PropertyName }[];
  /** The configurations pooled into it (one per workload profile). */
  readonly configurations: readonly string[];
  /**
   * Set when the cell is another set-up's: the same options without persistence (see `inherit`), or
   * a set-up whose runs are the same under this draw (SAME_RUNS).
   */
  readonly inheritedFrom?: string;
}

export interface MatrixLine {
  readonly setup: string;
  readonly facets: SetupFacets;
  readonly cells: Readonly<Partial<Record<FaultDraw, MatrixCell>>>;
  /** Per property: the measured draws under which it was exercised and held. */
  readonly drawsHeldBy: Readonly<Record<PropertyName, number>>;
  /** Draws whose every exercised property held. */
  readonly drawsHeld: number;
  /** (draw, property) pairs exercised and held. */
  readonly propertiesHeld: number;
  /** Violating (draw, property) runs summed: the tie-break. */
  readonly violations: number;
}

export interface Decision {
  /** The draws measured by any row: no faults, then each family in registry order, then the swarm. */
  readonly columns: readonly FaultDraw[];
  /** Every set-up, by topology, best first (the ranking rule of `rankLines`). */
  readonly lines: readonly MatrixLine[];
  /** Per topology, in the order the matrix lists them: its first line. */
  readonly recommended: readonly MatrixLine[];
  /** Draws under which no set-up held every property. */
  readonly unsurvived: readonly FaultDraw[];
  /** Fewest and most runs pooled into one cell. */
  readonly runsPerCell: { readonly min: number; readonly max: number };
}

/** The rule, in words, as the page states it. */
export const RECOMMENDATION_RULE = `the set-up that holds the worst-ranked property under the most fault draws (no faults, each family, the swarm), then the next property, and so on worst first (${PROPERTIES_WORST_FIRST.map((p) => PROPERTIES[p].label).join(', ')}: losing a message outweighs any number of late ones); among those tied, the one holding every property under the most draws; then the most (draw, property) pairs held; then the fewest violating runs. A draw a set-up was not measured under counts as not held (a set-up counts the cells it inherits, marked ⁱ)`;

function poolCell(rows: readonly PublishedRow[]): MatrixCell {
  const counts = Object.fromEntries(
    PROPERTY_NAMES.map((p) => [p, { violated: rows.reduce((n, r) => n + r.cells[p].violated, 0), exercised: rows.reduce((n, r) => n + r.cells[p].exercised, 0) }]),
  ) as Record<PropertyName, { violated: number; exercised: number }>;
  const runs = rows.reduce((n, r) => n + r.runs, 0);
  const struck = rows.every((r) => r.exposedRuns !== 0);
  const violated = PROPERTIES_WORST_FIRST.filter((p) => counts[p].violated > 0);
  const held = struck ? PROPERTY_NAMES.filter((p) => counts[p].violated === 0 && counts[p].exercised > 0) : [];
  const mech = new Map<string, { key: string; runs: number; property: PropertyName }>();
  for (const r of rows) {
    for (const p of PROPERTY_NAMES) {
      for (const m of r.cells[p].mechanisms) {
        const e = mech.get(m.key) ?? { key: m.key, runs: 0, property: propertyOfMechanism(m.key) ?? p };
        e.runs += m.runs;
        mech.set(m.key, e);
      }
    }
  }
  const verdict: Verdict = violated.length > 0 ? 'violated' : held.length > 0 ? 'held' : 'not exercised';
  const rate =
    verdict === 'violated'
      ? Math.max(...violated.map((p) => counts[p].violated / counts[p].exercised))
      : verdict === 'held'
        ? Math.max(...held.map((p) => wilson(0, counts[p].exercised).high))
        : 0;
  return {
    runs,
    verdict,
    rate,
    violated,
    held,
    counts,
    mechanisms: [...mech.values()].sort((a, b) => b.runs - a.runs || (a.key < b.key ? -1 : 1)),
    configurations: rows.map((r) => r.name),
  };
}

const sameBut = (a: SetupFacets, b: SetupFacets) => (Object.keys(a) as (keyof SetupFacets)[]).every((k) => k === 'persistence' || a[k] === b[k]);

/**
 * A set-up with persistence is measured only under the families where persistence acts (a crash that
 * keeps or loses the disk): under every other draw its runs are those of the same set-up without it,
 * so its line shows that set-up's cells there, marked as inherited. Likewise a draw whose row was
 * dropped because another set-up's runs are the same there (SAME_RUNS) shows that set-up's cell.
 */
function inherit(lines: MatrixLine[], sameRuns: readonly SameRuns[]): void {
  for (const [i, line] of lines.entries()) {
    const cells: Partial<Record<FaultDraw, MatrixCell>> = { ...line.cells };
    // First the draws another set-up's row measures for it (its runs are the same there).
    for (const same of sameRuns) {
      const measured = lines.find((l) => l.setup === same.measuredAs)?.cells[same.faults];
      if (same.setup === line.setup && !cells[same.faults] && measured) cells[same.faults] = { ...measured, inheritedFrom: same.measuredAs };
    }
    const base = line.facets.persistence === NO_PERSISTENCE ? undefined : lines.find((l) => l.facets.persistence === NO_PERSISTENCE && sameBut(l.facets, line.facets));
    if (base) for (const [d, cell] of Object.entries(base.cells) as [FaultDraw, MatrixCell][]) if (!cells[d]) cells[d] = { ...cell, inheritedFrom: base.setup };
    if (Object.keys(cells).length > Object.keys(line.cells).length) lines[i] = scored(line.setup, line.facets, cells);
  }
}

function scored(setup: string, facets: SetupFacets, cells: Partial<Record<FaultDraw, MatrixCell>>): MatrixLine {
  const all = Object.values(cells);
  return {
    setup,
    facets,
    cells,
    drawsHeldBy: Object.fromEntries(PROPERTY_NAMES.map((p) => [p, all.filter((c) => c.held.includes(p)).length])) as Record<PropertyName, number>,
    drawsHeld: all.filter((c) => c.verdict === 'held').length,
    propertiesHeld: all.reduce((n, c) => n + c.held.length, 0),
    violations: all.reduce((n, c) => n + PROPERTY_NAMES.reduce((m, p) => m + c.counts[p].violated, 0), 0),
  };
}

/**
 * Best first: worst first over the properties, the most draws under which that property held; then the
 * most draws held whole, the most (draw, property) pairs held, the fewest violations, the name. A user
 * asks first what loses messages: a set-up that loses none under one more family beats one that is
 * merely on time under more.
 */
export function rankLines(a: MatrixLine, b: MatrixLine): number {
  for (const p of PROPERTIES_WORST_FIRST) {
    const d = b.drawsHeldBy[p] - a.drawsHeldBy[p];
    if (d !== 0) return d;
  }
  return b.drawsHeld - a.drawsHeld || b.propertiesHeld - a.propertiesHeld || a.violations - b.violations || (a.setup < b.setup ? -1 : a.setup > b.setup ? 1 : 0);
}

export function decide(data: GuaranteesData, sameRuns: readonly SameRuns[] = SAME_RUNS): Decision {
  const draws = new Set(data.rows.map((r) => r.faults));
  const columns = (['none', ...FAULT_FAMILY_NAMES, 'swarm'] as FaultDraw[]).filter((d) => draws.has(d));
  const topologies = [...new Set(data.rows.map((r) => r.facets.topology))];
  const setups = [...new Set(data.rows.map((r) => r.setup))];
  const lines = setups.map((setup): MatrixLine => {
    const rows = data.rows.filter((r) => r.setup === setup);
    const cells: Partial<Record<FaultDraw, MatrixCell>> = {};
    for (const d of columns) {
      const pooled = rows.filter((r) => r.faults === d);
      if (pooled.length > 0) cells[d] = poolCell(pooled);
    }
    return scored(setup, rows[0]!.facets, cells);
  });
  inherit(lines, sameRuns);
  const ordered = topologies.flatMap((t) => lines.filter((l) => l.facets.topology === t).sort(rankLines));
  const everyCell = ordered.flatMap((l) => Object.values(l.cells));
  return {
    columns,
    lines: ordered,
    recommended: topologies.map((t) => ordered.find((l) => l.facets.topology === t)!),
    unsurvived: columns.filter((d) => !ordered.some((l) => l.cells[d]?.verdict === 'held')),
    runsPerCell: { min: Math.min(...everyCell.map((c) => c.runs)), max: Math.max(...everyCell.map((c) => c.runs)) },
  };
}

/** The draws some set-up of this topology was measured under (its own rows or inherited cells). */
export function topologyColumns(decision: Decision, topology: string): readonly FaultDraw[] {
  return decision.columns.filter((d) => decision.lines.some((l) => l.facets.topology === topology && l.cells[d]));
}

/** A short code per property for the matrix's cells (the initials of its label), unique by construction check. */
export const PROPERTY_CODES: Readonly<Record<PropertyName, string>> = (() => {
  const codes = Object.fromEntries(
    PROPERTY_NAMES.map((p) => [
      p,
      PROPERTIES[p].label
        .split(/[\s-]+/)
        .map((w) => w[0]!.toUpperCase())
        .join(''),
    ]),
  ) as Record<PropertyName, string>;
  if (new Set(Object.values(codes)).size !== PROPERTY_NAMES.length) throw new Error(`two properties share a code: ${JSON.stringify(codes)}`);
  return codes;
})();
