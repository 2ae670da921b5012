import { PROPERTIES, PROPERTY_NAMES, type PropertyName } from '../../model/properties.js';
import type { SimConfig } from '../../sim/run/config.js';
import { CONFIGURATIONS, configurationRun, type NamedConfiguration } from '../../sim/run/configurations.js';
import { wilson } from '../../sim/campaign/guarantees.js';
import { runSimulation } from '../../sim/run/run.js';
import { realTwinProblems } from './faults/index.js';
import { asHappened, runReal } from './run-real.js';

/** A row of the fidelity table: a configuration of the guarantees table, or one derived from it. */
interface FidelityRow {
  readonly name: string;
  readonly named: NamedConfiguration;
}

function tableRow(name: string): NamedConfiguration {
  const named = CONFIGURATIONS.find((c) => c.name === name);
  if (!named) throw new Error(`fidelity row ${name}: no such configuration in the guarantees table`);
  return named;
}

/** The rows with a real twin: the ones the fidelity table compares (docs/FIDELITY.md). */
export const FIDELITY_ROWS: readonly FidelityRow[] = [
  'primary-replica/legacy/none',
  'primary-replica/atomic/none',
  'primary-replica/atomic/node-crash',
  'primary-replica/atomic+server-time+durable/node-crash',
  'primary-replica/atomic/client-crash',
  'primary-replica/atomic/clock',
  'dynomite/DC_QUORUM/atomic/none',
  'dynomite/DC_SAFE_QUORUM/atomic/none',
  'dynomite/DC_QUORUM/legacy/node-crash',
  'dynomite/DC_QUORUM/atomic/node-crash',
  'dynomite/DC_SAFE_QUORUM/atomic/node-crash',
  'dynomite/DC_QUORUM/atomic/backend-crash',
  'dynomite/DC_SAFE_QUORUM/atomic/backend-crash',
  'dynomite/DC_QUORUM/atomic/node-stall',
  'dynomite/DC_SAFE_QUORUM/atomic/node-stall',
  'dynomite/DC_QUORUM/atomic/partition',
  // The full workload (delays, priorities, the whole API) on the rows above that fault it most.
  'primary-replica/atomic/node-crash/full',
  'dynomite/DC_QUORUM/atomic/none/full',
  'dynomite/DC_QUORUM/atomic/node-crash/full',
  'dynomite/DC_QUORUM/atomic/partition/full',
  'primary-replica/legacy/memory-pressure',
  'primary-replica/atomic/memory-pressure',
  'primary-replica/legacy/eviction',
  'primary-replica/atomic/eviction',
  // The zone-failover client (connect's opt-in `dynomite.failover`), moved by client-failover faults.
  'dynomite/DC_QUORUM/atomic/client-failover',
  'dynomite/DC_QUORUM/legacy/client-failover',
].map((name) => ({ name, named: tableRow(name) }));

/** Real runs per row by default: fewer make an interval too wide for "agree" to mean anything. */
export const DEFAULT_REAL_RUNS = 20;

/** Per property: runs that violated it out of runs that exercised it. */
export type Tally = Record<PropertyName, { violated: number; exercised: number }>;

const emptyTally = (): Tally => Object.fromEntries(PROPERTY_NAMES.map((p) => [p, { violated: 0, exercised: 0 }])) as Tally;

/** A tally from older data, with the properties it did not judge as exercised by no run (shown "not exercised"). */
const completeTally = (t: Partial<Tally>): Tally => ({ ...emptyTally(), ...t });

function count(t: Tally, report: { properties: Record<PropertyName, boolean>; exercised: Record<PropertyName, boolean> }): void {
  for (const p of PROPERTY_NAMES) {
    if (!report.exercised[p]) continue;
    t[p].exercised++;
    if (!report.properties[p]) t[p].violated++;
  }
}

/**
 * Per property, the real runs paired with the simulator on the same seed and the schedule as it
 * really happened: how many both violated, only the simulator, only reality, neither (runs where both
 * exercised the property).
 */
interface SeedPairs {
  both: number;
  simOnly: number;
  realOnly: number;
  neither: number;
}
export type PairTally = Record<PropertyName, SeedPairs>;

const emptyPairs = (): PairTally => Object.fromEntries(PROPERTY_NAMES.map((p) => [p, { both: 0, simOnly: 0, realOnly: 0, neither: 0 }])) as PairTally;

function pair(t: PairTally, sim: { properties: Record<PropertyName, boolean>; exercised: Record<PropertyName, boolean> }, real: { properties: Record<PropertyName, boolean>; exercised: Record<PropertyName, boolean> }): void {
  for (const p of PROPERTY_NAMES) {
    if (!sim.exercised[p] || !real.exercised[p]) continue;
    const [s, r] = [!sim.properties[p], !real.properties[p]];
    t[p][s && r ? 'both' : s ? 'simOnly' : r ? 'realOnly' : 'neither']++;
  }
}

export interface RowFidelity {
  readonly row: string;
  readonly description: string;
  /** Simulated seeds behind `simulated`. */
  readonly simSeeds: number;
  /** The simulator on `simSeeds` seeds (the table's own measurement of the row). */
  readonly simulated: Tally;
  /** The simulator on exactly the seeds that also ran for real, each with its schedule as it really happened. */
  readonly simulatedTwins: Tally;
  /** Seed by seed, the simulator (schedule as it happened) next to the real run (absent in older data). */
  readonly perSeed?: PairTally;
  readonly real: Tally;
  readonly realRuns: number;
  /** Seeds skipped because their schedule had a fault with no real means (a node's clock, a partition). */
  readonly skipped: number;
  /** Dynomite: runs whose replicas ended equal, simulated (twin seeds) and real. */
  readonly replicasEqual: { readonly simulated: number; readonly real: number } | null;
  /** Real runs whose fault failed to strike (a process that would not restart) or that did not complete, with the error. */
  readonly faultErrors: readonly string[];
  readonly realSeconds: number;
}

type Agreement = 'agree' | 'simulator harsher' | 'simulator gentler';

/**
 * McNemar's exact test on paired verdicts: the two-sided probability of a split of the discordant
 * seeds at least this uneven if either side were as likely to violate alone.
 */
export function mcnemarP(simOnly: number, realOnly: number): number {
  const n = simOnly + realOnly;
  if (n === 0) return 1;
  const k = Math.min(simOnly, realOnly);
  let tail = 0;
  let c = 1; // C(n, 0)
  for (let i = 0; i <= k; i++) {
    tail += c;
    c = (c * (n - i)) / (i + 1);
  }
  return Math.min(1, (2 * tail) / 2 ** n);
}

/** Seed by seed: agree unless one side violates alone significantly more often (McNemar, 5 %). */
export function seedAgreement(p: SeedPairs): Agreement {
  if (mcnemarP(p.simOnly, p.realOnly) >= 0.05) return 'agree';
  return p.simOnly > p.realOnly ? 'simulator harsher' : 'simulator gentler';
}

/** A row's property agrees only when the intervals and the seed-by-seed pairs both say so. */
export function verdict(sim: { violated: number; exercised: number }, real: { violated: number; exercised: number }, pairs: SeedPairs | undefined): Agreement {
  const byIntervals = agreement(sim, real);
  if (byIntervals !== 'agree') return byIntervals;
  return pairs ? seedAgreement(pairs) : 'agree';
}

/**
 * The smallest difference the table could detect for a property: against the simulated rate, the
 * nearest real rate, above and below, whose interval over `runs` real runs would not overlap the
 * simulated one (null: none could).
 */
export function detectable(sim: { violated: number; exercised: number }, runs: number): { above: number | null; below: number | null } {
  const s = wilson(sim.violated, sim.exercised);
  let above: number | null = null;
  let below: number | null = null;
  for (let k = 0; k <= runs; k++) {
    const r = wilson(k, runs);
    if (above === null && r.low > s.high) above = k / runs;
    if (r.high < s.low) below = k / runs;
  }
  return { above, below };
}

/** Agree when the 95 % intervals of the two rates overlap; otherwise which side is harsher. */
export function agreement(sim: { violated: number; exercised: number }, real: { violated: number; exercised: number }): Agreement {
  const s = wilson(sim.violated, sim.exercised);
  const r = wilson(real.violated, real.exercised);
  if (s.low > r.high) return 'simulator harsher';
  if (s.high < r.low) return 'simulator gentler';
  return 'agree';
}

interface FidelityOptions {
  /** Real runs per row at most (default DEFAULT_REAL_RUNS). */
  readonly realRuns?: number;
  /** Seeds per row on the simulator (default 40). */
  readonly simSeeds?: number;
  /** Wall-clock budget for the real runs, ms: rows take turns until it is spent (default 10 h). */
  readonly budgetMs?: number;
  /** Only rows whose name contains this. */
  readonly only?: string;
  readonly onProgress?: (line: string) => void;
}

export interface FidelityMeasurement {
  readonly rows: readonly RowFidelity[];
  readonly options: Required<Omit<FidelityOptions, 'onProgress' | 'only'>>;
}

/**
 * A new measurement of some rows over an earlier one of all of them (real runs are slow: `--only`
 * re-measures what changed). Rows come out in FIDELITY_ROWS order; a row measured in neither is absent.
 */
export function mergeFidelity(earlier: FidelityMeasurement | null, fresh: FidelityMeasurement): FidelityMeasurement {
  const kept = (r: RowFidelity): RowFidelity => ({ ...r, simulated: completeTally(r.simulated), simulatedTwins: completeTally(r.simulatedTwins), real: completeTally(r.real) });
  const rows = FIDELITY_ROWS.map((r) => fresh.rows.find((x) => x.row === r.name) ?? earlier?.rows.find((x) => x.row === r.name)).filter((r): r is RowFidelity => r !== undefined).map(kept);
  return { options: fresh.options, rows };
}

const seedOf = (row: string, i: number) => `fidelity-${row}-${i}`;

/**
 * Measures every fidelity row: the simulator on many seeds, and real twins on as many of the same
 * seeds as the budget allows (rows take turns, so a slow row does not starve the others), each real
 * seed also run on the simulator so that the two are compared on the same fault schedule.
 */
export async function measureFidelity(options: FidelityOptions = {}): Promise<FidelityMeasurement> {
  const realRuns = options.realRuns ?? DEFAULT_REAL_RUNS;
  const simSeeds = options.simSeeds ?? 40;
  const budgetMs = options.budgetMs ?? 600 * 60_000;
  const progress = options.onProgress ?? (() => undefined);
  const rows = FIDELITY_ROWS.filter((r) => options.only === undefined || r.name.includes(options.only));
  const configFor = (row: FidelityRow, seed: string): SimConfig => configurationRun(row.named, seed);
  const state = rows.map((row) => ({
    row,
    simulated: emptyTally(),
    simulatedTwins: emptyTally(),
    perSeed: emptyPairs(),
    real: emptyTally(),
    realRuns: 0,
    skipped: 0,
    next: 0,
    replicas: { simulated: 0, real: 0 },
    faultErrors: [] as string[],
    realMs: 0,
  }));
  for (const s of state) {
    for (let i = 0; i < simSeeds; i++) count(s.simulated, (await runSimulation(configFor(s.row, seedOf(s.row.name, i)), { traceHash: false })).report);
    progress(`simulated ${s.row.name}: ${simSeeds} seeds`);
  }
  const started = Date.now();
  for (let round = 0; round < realRuns; round++) {
    for (const s of state) {
      if (Date.now() - started > budgetMs) break;
      // The next seed whose whole schedule has real means.
      let config: SimConfig | null = null;
      while (config === null && s.next < 10 * realRuns) {
        const candidate = configFor(s.row, seedOf(s.row.name, s.next++));
        if (realTwinProblems(candidate).length === 0) config = candidate;
        else s.skipped++;
      }
      if (config === null) continue;
      const t0 = Date.now();
      let real: Awaited<ReturnType<typeof runReal>>;
      try {
        real = await runReal(config);
      } catch (err) {
        // Processes that would not start are no verdict: the seed is noted, not counted.
        s.faultErrors.push(`${config.seed}: the real run did not complete (${err instanceof Error ? err.message.split('\n')[0] : String(err)})`);
        progress(`real ${s.row.name} seed ${config.seed}: did not complete: ${err instanceof Error ? err.message.split('\n')[0] : String(err)}`);
        continue;
      }
      s.realMs += Date.now() - t0;
      // The simulator on the same seed and the schedule as it really happened (late restarts, real durations).
      const sim = await runSimulation(asHappened(real), { traceHash: false });
      count(s.simulatedTwins, sim.report);
      pair(s.perSeed, sim.report, real.report);
      if (sim.replicas?.equal) s.replicas.simulated++;
      count(s.real, real.report);
      s.realRuns++;
      if (real.replicas?.equal) s.replicas.real++;
      for (const f of real.faults) if (f.error) s.faultErrors.push(`${config.seed}: ${f.fault.kind} ${f.error}`);
      const broken = PROPERTY_NAMES.filter((p) => !real.report.properties[p]);
      progress(`real ${s.row.name} seed ${config.seed}: ${broken.length === 0 ? 'every property held' : `violated ${broken.join(', ')}`} (${((Date.now() - t0) / 1000).toFixed(1)} s)`);
    }
  }
  return {
    options: { realRuns, simSeeds, budgetMs },
    rows: state.map((s) => ({
      row: s.row.name,
      description: s.row.named.description,
      simSeeds,
      simulated: s.simulated,
      simulatedTwins: s.simulatedTwins,
      perSeed: s.perSeed,
      real: s.real,
      realRuns: s.realRuns,
      skipped: s.skipped,
      replicasEqual: s.row.named.config.topology?.kind === 'dynomite' ? s.replicas : null,
      faultErrors: s.faultErrors,
      realSeconds: Math.round(s.realMs / 1000),
    })),
  };
}

const pct = (x: number) => `${Math.round(100 * x)} %`;
function rate(t: { violated: number; exercised: number }): string {
  if (t.exercised === 0) return 'not exercised';
  const w = wilson(t.violated, t.exercised);
  return `${t.violated}/${t.exercised} (${pct(w.low)}–${pct(w.high)})`;
}

/** Why a row's simulated and real rates differ, where that was measured (shown under the row). */
export type Explanations = Readonly<Record<string, string>>;

/** Seed-by-seed cell: runs with the same verdict on both sides / runs both exercised (and who violated alone). */
function seedCell(p: SeedPairs | undefined): string {
  if (!p) return 'not measured';
  const n = p.both + p.simOnly + p.realOnly + p.neither;
  if (n === 0) return 'not exercised';
  return `${p.both + p.neither}/${n} (only simulated ${p.simOnly}, only real ${p.realOnly})`;
}

/** What a property's row could tell apart from the simulated rate with this many real runs. */
function detectCell(sim: { violated: number; exercised: number }, runs: number): string {
  if (sim.exercised === 0 || runs === 0) return '—';
  const d = detectable(sim, runs);
  const parts = [d.below !== null ? `≤ ${pct(d.below)}` : null, d.above !== null ? `≥ ${pct(d.above)}` : null].filter((x) => x !== null);
  return parts.length === 0 ? 'none' : `real ${parts.join(' or ')}`;
}

/** The smallest gap (percentage points) between the simulated rate and a real rate this row could tell apart. */
function smallestGap(r: RowFidelity): { gap: number; property: PropertyName } | null {
  let best: { gap: number; property: PropertyName } | null = null;
  for (const p of PROPERTY_NAMES) {
    const sim = r.simulated[p];
    const runs = r.real[p].exercised;
    if (sim.exercised === 0 || runs === 0) continue;
    const rate = sim.violated / sim.exercised;
    const d = detectable(sim, runs);
    for (const x of [d.above, d.below]) {
      if (x === null) continue;
      const gap = Math.abs(x - rate);
      if (!best || gap < best.gap) best = { gap, property: p };
    }
  }
  return best;
}

/** docs/FIDELITY.md from a measurement. */
export function formatFidelity(m: FidelityMeasurement, explanations: Explanations = {}): string {
  const lines = [
    '# Fidelity: the simulator next to real processes',
    '',
    `Generated by \`npm run fidelity\` (\`dynoq fidelity --runs ${m.options.realRuns} --sim-seeds ${m.options.simSeeds} --budget-minutes ${Math.round(m.options.budgetMs / 60_000)} --out docs/FIDELITY.md\`, data in docs/FIDELITY.json; \`--only ROW\` measures one row again into it); do not edit by hand.`,
    '',
    `Each row is a configuration of the guarantees table (docs/GUARANTEES.md) run twice: on the simulator (${m.options.simSeeds} seeds), and as its **real twin** — the same configuration, workload profile and fault schedule on real processes on loopback (redis-server primary with two replicas and three Sentinels; or three Dynomite nodes built from \`../shared/vendor/\`, each with its own redis-server), in real time, judged by the same checker (\`dynoq sim --real\`). Each row has at most ${m.options.realRuns} real runs (within a ${Math.round(m.options.budgetMs / 60_000)}-minute budget for all rows).`,
    '',
    'A real run does not strike its faults exactly when drawn: a restart on a loaded machine takes seconds, and a fault waits for the one before it on the same process (a crash of a zone still restarting strikes once it is up). The twin records every fault **as it happened** — when it took effect, how long a partition or pause lasted — and the simulator runs that schedule again on the same seed: the column *simulated, as happened* and the **seed-by-seed** column compare the two run by run.',
    '',
    'A cell is *runs that violated the property / runs that exercised it (95 % Wilson interval)*. The seed-by-seed cell is *runs with the same verdict on both sides / runs both exercised*, with how many only the simulator or only reality violated. A property **agrees** only when both say so: the intervals of the simulated and the real rate overlap, **and** the seeds where one side alone violated are not significantly lopsided (McNemar\'s exact test, 5 %). Otherwise the verdict names the side that breaks the property more often: **simulator harsher** or **simulator gentler**. The column *could detect* says how far the real rate would have to be from the simulated one for the intervals to part with this many real runs: *agree* means "no difference larger than that", not proof of none.',
    '',
    'Real faults are real means: SIGKILL and a restart from the append-only file (or without it, for faults that lose data), SIGSTOP/SIGCONT, a client whose connections are closed, a client clock set off in its process, and on Dynomite a partition between two nodes held in a TCP proxy on each peer link (bytes held, delivered in order at the heal unless the connection closed meanwhile). On the failover-client rows the real clients are `connect()`\'s opt-in zone-failover client, and a client-failover fault moves a client\'s connections to the other zone\'s node (its in-flight calls fail as on any reconnect). Faults with no real means here — partitions on a primary with replicas, lag spikes, a store node\'s clock — are not run: seeds whose schedule has one are skipped and counted.',
    '',
    'Scoring a refused write is the same on both sides: on a real Dynomite a write answered as refused (an ack voted down to 0) may have run on one replica, and the client cannot tell, so the real twin scores every refused write on Dynomite **unknown**; the simulator knows, and scores a refusal unknown exactly when some replica ran it ([CHECKER.md](CHECKER.md) §1.2). ioredis\'s `MaxRetriesPerRequestError` is a fail only for a write it held in its offline queue (never sent); on a write made while the connection was ready it is unknown (it was in flight: seen applied on every backend).',
    '',
    '| row | real runs | smallest difference it could detect | properties that disagree |',
    '|---|---|---|---|',
  ];
  for (const r of m.rows) {
    const disagree = PROPERTY_NAMES.filter((p) => r.real[p].exercised > 0 && r.simulated[p].exercised > 0 && verdict(r.simulated[p], r.real[p], r.perSeed?.[p]) !== 'agree');
    const gap = smallestGap(r);
    lines.push(
      `| ${r.row} | ${r.realRuns} | ${gap ? `${Math.round(100 * gap.gap)} points (${PROPERTIES[gap.property].label})` : 'none'} | ${disagree.length === 0 ? 'none (agree)' : disagree.map((p) => `${PROPERTIES[p].label}: ${verdict(r.simulated[p], r.real[p], r.perSeed?.[p])}`).join('; ')} |`,
    );
  }
  for (const r of m.rows) {
    lines.push('', `## ${r.row}`, '', `${r.description}. ${r.simSeeds} simulated seeds; ${r.realRuns} real run(s), ${r.realSeconds} s on real processes${r.skipped > 0 ? `; ${r.skipped} seed(s) skipped (a fault with no real means)` : ''}.`, '');
    lines.push('| property | simulated | simulated, as happened | real | seed by seed | could detect | verdict |', '|---|---|---|---|---|---|---|');
    for (const p of PROPERTY_NAMES) {
      const v = r.real[p].exercised === 0 || r.simulated[p].exercised === 0 ? 'not compared (not exercised)' : verdict(r.simulated[p], r.real[p], r.perSeed?.[p]);
      lines.push(`| ${PROPERTIES[p].label} | ${rate(r.simulated[p])} | ${rate(r.simulatedTwins[p])} | ${rate(r.real[p])} | ${seedCell(r.perSeed?.[p])} | ${detectCell(r.simulated[p], r.real[p].exercised)} | ${v} |`);
    }
    if (r.replicasEqual) lines.push('', `Replicas equal at the end: simulated ${r.replicasEqual.simulated}/${r.realRuns} (same seeds, as happened), real ${r.replicasEqual.real}/${r.realRuns}.`);
    if (r.faultErrors.length > 0) lines.push('', `Real runs not counted or faults that failed to strike: ${r.faultErrors.join('; ')}.`);
    const why = explanations[r.row];
    if (why) lines.push('', `**Why they differ.** ${why}`);
  }
  lines.push('');
  return lines.join('\n');
}
