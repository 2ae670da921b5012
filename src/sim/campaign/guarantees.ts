import { PROPERTY_NAMES, VIOLATION_KINDS, type PropertyName } from '../../model/properties.js';
import { CONFIGURATIONS, configurationRun, type NamedConfiguration } from '../run/configurations.js';
import { classifyFindings, mechanismKey, type Mechanism } from './mechanisms.js';
import { deliveryBound } from '../settings/delivery-bound.js';
import { runSimulation } from '../run/run.js';
import { RACE_NAMES, type RaceName } from '../workloads/race-names.js';

/** What one run of a configuration tells the table (small enough to pass between threads). */
export interface RunSummary {
  readonly configuration: string;
  readonly seed: string;
  readonly held: Record<PropertyName, boolean>;
  /** Distinct messages behind the findings that break each property. */
  readonly affected: Record<PropertyName, number>;
  /** Whether a fault of the row's family (any fault, for the swarm) changed something. */
  readonly exposed: boolean;
  readonly promotions: number;
  /** Dynomite only (null elsewhere): whether the replicas' keys differed once the run drained. */
  readonly replicasDiverged: boolean | null;
  /** Each mechanism (with its key) and the findings it explains. */
  readonly mechanisms: (Mechanism & { readonly key: string; readonly findings: number })[];
  /** Whether the run could have broken each property (docs/CHECKER.md §5). */
  readonly exercised: Record<PropertyName, boolean>;
  /** Lateness figures of the run (docs/CHECKER.md §2.4), ms. */
  readonly lateness: { readonly p50: number; readonly p99: number; readonly max: number; readonly count: number };
  /** The delivery bound the run was judged with, ms. */
  readonly boundMs: number;
  /** Whether the racers made each race in this run (src/sim/workloads/race.ts). */
  readonly races: Record<RaceName, boolean>;
}

export function configurationNamed(name: string): NamedConfiguration | undefined {
  return CONFIGURATIONS.find((c) => c.name === name);
}

export async function summarizeRun(input: { configuration: string; seed: string }): Promise<RunSummary> {
  const named = configurationNamed(input.configuration);
  if (!named) throw new Error(`unknown configuration ${input.configuration}`);
  // The table reads verdicts, never the trace hash: the trace is only counted.
  const r = await runSimulation(configurationRun(named, input.seed), { traceHash: false });
  const ids = Object.fromEntries(PROPERTY_NAMES.map((p) => [p, new Set<string>()])) as Record<PropertyName, Set<string>>;
  for (const v of r.report.violations) {
    const p = VIOLATION_KINDS[v.kind].breaks;
    if (p) ids[p].add(v.id);
  }
  const mechanisms = new Map<string, Mechanism & { key: string; findings: number }>();
  for (const m of classifyFindings(r.report.violations, r.history, r.faults)) {
    const key = mechanismKey(m);
    const entry = mechanisms.get(key) ?? { key, kind: m.kind, cause: m.cause, findings: 0 };
    entry.findings++;
    mechanisms.set(key, entry);
  }
  const relevant = r.faults.filter((f) => named.faults === 'swarm' || f.family === named.faults);
  return {
    configuration: named.name,
    seed: input.seed,
    held: { ...r.report.properties },
    affected: Object.fromEntries(PROPERTY_NAMES.map((p) => [p, ids[p].size])) as Record<PropertyName, number>,
    exposed: relevant.some((f) => f.exposure.struck),
    promotions: r.faults.reduce((n, f) => n + (f.exposure.counts.promotions ?? 0), 0),
    replicasDiverged: r.replicas === null ? null : !r.replicas.equal,
    mechanisms: [...mechanisms.values()],
    exercised: { ...r.report.exercised },
    lateness: r.report.lateness,
    boundMs: deliveryBound(r.config),
    races: Object.fromEntries(RACE_NAMES.map((race) => [race, (r.races[race] ?? 0) > 0])) as Record<RaceName, boolean>,
  };
}

/** Wilson score interval (95 %) for k successes in n trials, as fractions. */
export function wilson(k: number, n: number): { low: number; high: number } {
  if (n === 0) return { low: 0, high: 1 };
  const z = 1.959964;
  const p = k / n;
  const d = 1 + (z * z) / n;
  const centre = (p + (z * z) / (2 * n)) / d;
  const half = (z * Math.sqrt((p * (1 - p)) / n + (z * z) / (4 * n * n))) / d;
  return { low: Math.max(0, centre - half), high: Math.min(1, centre + half) };
}

export interface PropertyCell {
  readonly violated: number;
  /** Runs that could have broken the property (a violated run was exercised). */
  readonly exercised: number;
  readonly interval: { readonly low: number; readonly high: number };
  /** Messages affected in the runs that violated it: median and max. */
  readonly affectedMedian: number;
  readonly affectedMax: number;
  readonly firstSeed: string | null;
  /** Mechanisms behind it (with their keys): the runs in which each appeared, the first of them. */
  readonly mechanisms: readonly (Mechanism & { readonly key: string; readonly runs: number; readonly firstSeed: string })[];
}

export interface GuaranteeRow {
  readonly configuration: NamedConfiguration;
  readonly runs: number;
  /** Runs in which the row's faults changed something (null for rows without faults). */
  readonly exposedRuns: number | null;
  readonly promotionRuns: number;
  /** Runs that ended with replicas holding different keys (null where replicas are not compared). */
  readonly divergedRuns: number | null;
  readonly cells: Record<PropertyName, PropertyCell>;
  /** Lateness over the runs: the median run's p50 and p99, and the largest max, ms. */
  readonly lateness: { readonly p50: number; readonly p99: number; readonly max: number };
  readonly boundMs: number;
  /** Runs in which the racers made each race. */
  readonly raceRuns: Record<RaceName, number>;
}

function median(xs: readonly number[]): number {
  if (xs.length === 0) return 0;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor((s.length - 1) / 2)]!;
}

/** Folds the runs of one configuration into its row. */
export function foldRow(configuration: NamedConfiguration, runs: readonly RunSummary[]): GuaranteeRow {
  const cells = Object.fromEntries(
    PROPERTY_NAMES.map((p) => {
      const violating = runs.filter((r) => !r.held[p]);
      const exercised = runs.filter((r) => r.exercised[p] || !r.held[p]).length;
      const mech = new Map<string, Mechanism & { key: string; runs: number; firstSeed: string }>();
      for (const r of violating) {
        for (const m of r.mechanisms) {
          if (VIOLATION_KINDS[m.kind].breaks !== p) continue;
          const e = mech.get(m.key) ?? { key: m.key, kind: m.kind, cause: m.cause, runs: 0, firstSeed: r.seed };
          e.runs++;
          mech.set(m.key, e);
        }
      }
      const affected = violating.map((r) => r.affected[p]);
      const cell: PropertyCell = {
        violated: violating.length,
        exercised,
        interval: wilson(violating.length, exercised),
        affectedMedian: median(affected),
        affectedMax: Math.max(0, ...affected),
        firstSeed: violating[0]?.seed ?? null,
        mechanisms: [...mech.values()].sort((a, b) => b.runs - a.runs || (a.key < b.key ? -1 : 1)),
      };
      return [p, cell];
    }),
  ) as Record<PropertyName, PropertyCell>;
  return {
    configuration,
    runs: runs.length,
    exposedRuns: configuration.faults === 'none' ? null : runs.filter((r) => r.exposed).length,
    promotionRuns: runs.filter((r) => r.promotions > 0).length,
    divergedRuns: runs.some((r) => r.replicasDiverged === null) ? null : runs.filter((r) => r.replicasDiverged).length,
    cells,
    lateness: {
      p50: median(runs.map((r) => r.lateness.p50)),
      p99: median(runs.map((r) => r.lateness.p99)),
      max: Math.max(0, ...runs.map((r) => r.lateness.max)),
    },
    boundMs: runs[0]?.boundMs ?? 0,
    raceRuns: Object.fromEntries(RACE_NAMES.map((race) => [race, runs.filter((r) => r.races[race]).length])) as Record<RaceName, number>,
  };
}

export function seedsFor(count: number, prefix = 'g'): string[] {
  return Array.from({ length: count }, (_, i) => `${prefix}${i}`);
}

/** A shrunk scenario showing mechanism `key` on set-up `setup`: linked only from that set-up's rows. */
export interface MechanismScenario {
  readonly setup: string;
  readonly key: string;
  readonly file: string;
}

/** How a scenario is looked up: a mechanism shown on one set-up is no evidence about another. */
export function scenarioKey(setup: string, key: string): string {
  return `${setup} | ${key}`;
}

export { PROPERTY_NAMES, VIOLATION_KINDS };
