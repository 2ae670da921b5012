import { PROPERTIES, PROPERTY_NAMES, VIOLATION_KINDS, type PropertyName, type ViolationKind } from '../../model/properties.js';
import { parseSimConfig } from '../run/config.js';
import { CONFIGURATIONS, configurationRun, TABLE_PROFILE, type NamedConfiguration } from '../run/configurations.js';
import { PROFILES } from '../settings/workload-profile.js';
import { classifyFindings, mechanismKey } from './mechanisms.js';
import { deliveryBound } from '../settings/delivery-bound.js';
import { runSimulation } from '../run/run.js';
import { RACE_LABELS, RACE_NAMES, type RaceName } from '../workloads/race-names.js';

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
  /** Mechanism → findings it explains, with the kind it is about. */
  readonly mechanisms: { readonly key: string; readonly kind: ViolationKind; readonly findings: number }[];
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
  const r = await runSimulation(parseSimConfig(configurationRun(named, input.seed)), { traceHash: false });
  const ids = Object.fromEntries(PROPERTY_NAMES.map((p) => [p, new Set<string>()])) as Record<PropertyName, Set<string>>;
  for (const v of r.report.violations) {
    const p = VIOLATION_KINDS[v.kind].breaks;
    if (p) ids[p].add(v.id);
  }
  const mechanisms = new Map<string, { key: string; kind: ViolationKind; findings: number }>();
  for (const m of classifyFindings(r.report.violations, r.history, r.faults)) {
    const key = mechanismKey(m);
    const entry = mechanisms.get(key) ?? { key, kind: m.kind, findings: 0 };
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
  /** Mechanisms behind it: key → runs in which it appeared. */
  readonly mechanisms: readonly { readonly key: string; readonly runs: number; readonly firstSeed: string }[];
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
      const mech = new Map<string, { key: string; runs: number; firstSeed: string }>();
      for (const r of violating) {
        for (const m of r.mechanisms) {
          if (VIOLATION_KINDS[m.kind].breaks !== p) continue;
          const e = mech.get(m.key) ?? { key: m.key, runs: 0, firstSeed: r.seed };
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

const pct = (x: number) => `${(100 * x).toFixed(x < 0.1 ? 1 : 0)} %`;

function cellText(row: GuaranteeRow, p: PropertyName): string {
  const c = row.cells[p];
  const range = `${pct(c.interval.low)}–${pct(c.interval.high)}`;
  if (c.violated === 0) {
    if (row.exposedRuns === 0) return `not exercised (no fault struck in ${row.runs} runs)`;
    if (c.exercised === 0) return `not exercised (0/${row.runs} runs)`;
    return `held ${c.exercised}/${c.exercised} exercised (rate ≤ ${pct(c.interval.high)})`;
  }
  return `**violated** ${c.violated}/${c.exercised} exercised (${range}); msgs ${c.affectedMedian}/${c.affectedMax}`;
}

const ms = (x: number) => `${Math.round(x)}`;

function latenessText(row: GuaranteeRow): string {
  return `${ms(row.lateness.p50)} / ${ms(row.lateness.p99)} / ${ms(row.lateness.max)} (B ${row.boundMs})`;
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

/** The table as Markdown (docs/GUARANTEES.md), with mechanisms, advice and their scenarios. */
export function guaranteesMarkdown(
  rows: readonly GuaranteeRow[],
  command: string,
  scenarios: readonly MechanismScenario[],
  advise: (key: string) => string | null,
  timing?: string,
): string {
  const scenarioOf = new Map(scenarios.map((s) => [scenarioKey(s.setup, s.key), s.file]));
  const lines = [
    '# What each configuration guarantees (measured)',
    '',
    `Generated by \`${command}\`${timing ? ` (${timing})` : ''}. Every row is N seeded simulation runs judged by the history checker ([CHECKER.md](CHECKER.md) §1.2: operations are ok / fail / unknown; an unknown effect is never required nor blamed). Each set-up and fault draw is measured under the \`${TABLE_PROFILE}\` workload profile (${PROFILES[TABLE_PROFILE].description}); the \`basic\` profile's rows (${PROFILES.basic.description}) are not published: every property they broke, the same set-up and fault draw under \`${TABLE_PROFILE}\` broke too.`,
    '',
    'A cell counts only the runs that **exercised** its property, i.e. could have broken it ([CHECKER.md](CHECKER.md) §5): it reads runs that violated the property out of the exercised runs, the 95 % Wilson interval of that rate, and the messages affected in a violating run (median/max). "held k/k exercised (rate ≤ x)" is evidence, not proof: x is the upper end of the 95 % interval. "not exercised" means no run of the row could have broken the property (or the row\'s faults never struck), so the row says nothing about it. What exercises each property:',
    '',
    ...PROPERTY_NAMES.map((p) => `- **${PROPERTIES[p].label}** (${PROPERTIES[p].means}): ${PROPERTIES[p].exercisedWhen}.`),
    '',
    'Every number here is the simulator\'s. How far to trust it: [FIDELITY.md](FIDELITY.md) runs rows of this table as real twins (the same configuration, workload and fault schedule on real redis-server, Sentinel and Dynomite processes, judged by the same checker) and says, per property, where reality agrees, where the simulator is harsher and where it is gentler. Rows without a real twin there (lag spikes, client failover and pauses, partitions on a primary with replicas, a node\'s clock under server time, the swarm) have not been checked against real processes.',
    '',
    'Lateness ([CHECKER.md](CHECKER.md) §2.4) is each delivery by the schedule minus the later of when the message was free and due and when a consumer of its shard began waiting, in ms: the median run\'s p50 and p99, and the largest in any run. B is the delivery bound the row is judged with, derived from the configuration (`src/sim/settings/delivery-bound.ts`: one long-poll step, Dynomite\'s settle time in atomic mode, ten mean replication lags plus one lag spike where the network has spikes, four network latencies with jitter). Every row runs on the `lan` network profile (one region, as the real Dynomite of DYNOMITE.md was measured): 0.5 ms latency with 0.5 ms jitter, 5 ms mean replication lag shared by the copies of one request, no lag spikes; `network.profile: \'wan\'` adds a 200 ms spike to 1 % of replicated requests. What moves lateness: the clock that decides what is due (under client time a consumer whose clock runs behind asks for messages due by its own clock, the `consumer-clocks` rows; server time reads the store\'s clock and is immune to it), Dynomite\'s settle time (atomic mode holds a due message back `settleMs`, 1 s, so that every replica has it: the p50 of about 1 s on those rows), the poll interval (a waiting pop looks again every `pollInterval`), busy consumers (a message falls due while every consumer of its shard is working: lateness counts from when one starts waiting) and recovery (a message whose lease ran out is due again only when a reaper re-queues it, one reaper interval later). Any run replays with `dynoq sim --configuration NAME --seed SEED`.',
    '',
    `| configuration | runs | faults struck | ${PROPERTY_NAMES.map((p) => PROPERTIES[p].label).join(' | ')} | lateness p50 / p99 / max |`,
    `|---|---|---|${PROPERTY_NAMES.map(() => '---').join('|')}|---|`,
  ];
  for (const r of rows) {
    const exposure = r.exposedRuns === null ? '—' : `${r.exposedRuns}/${r.runs}${r.promotionRuns > 0 ? `, promotion in ${r.promotionRuns}` : ''}`;
    lines.push(`| \`${r.configuration.name}\` | ${r.runs} | ${exposure} | ${PROPERTY_NAMES.map((p) => cellText(r, p)).join(' | ')} | ${latenessText(r)} |`);
  }
  lines.push('', '## Mechanisms, by configuration', '');
  lines.push(
    'Each violation is classified from the run by code (`src/sim/campaign/mechanisms.ts`): the faults whose exposure names the message, else the faults that struck before it, else how the queue got there on its own. Counts are runs. Each mechanism links to a shrunk scenario that shows it (`dynoq replay FILE`).',
    '',
  );
  for (const r of rows) {
    const mechs = PROPERTY_NAMES.flatMap((p) => r.cells[p].mechanisms.map((m) => ({ p, ...m })));
    lines.push(`### \`${r.configuration.name}\``, '', `${r.configuration.description}.`, '');
    if (RACE_NAMES.some((race) => r.raceRuns[race] > 0)) lines.push(`- Races exercised (runs that made them): ${RACE_NAMES.map((race) => `${RACE_LABELS[race]} ${r.raceRuns[race]}/${r.runs}`).join(' · ')}.`);
    if (r.divergedRuns !== null) lines.push(`- Replicas' keys at the end (after replication drained): equal in ${r.runs - r.divergedRuns}/${r.runs} runs.`);
    if (mechs.length === 0) {
      lines.push(r.exposedRuns === 0 ? '- Not exercised: no fault of this row changed anything.' : '- Every property held in every run.', '');
      continue;
    }
    for (const m of mechs) {
      const file = scenarioOf.get(scenarioKey(r.configuration.setup, m.key));
      const advice = advise(m.key);
      lines.push(
        `- **${PROPERTIES[m.p].label}** — ${m.key}: ${m.runs}/${r.runs} runs (first seed \`${m.firstSeed}\`)${file ? `; scenario [\`${file}\`](../${file})` : ''}.${advice ? ` *What to do:* ${advice}` : ''}`,
      );
    }
    lines.push('');
  }
  return lines.join('\n');
}

export { PROPERTY_NAMES, VIOLATION_KINDS };
