import { PROPERTY_NAMES, type PropertyName } from '../../model/properties.js';
import type { SimConfig } from '../../sim/run/config.js';
import { configurationRun, TABLE_CONFIGURATIONS, type NamedConfiguration } from '../../sim/run/configurations.js';
import { wilson } from '../../sim/campaign/guarantees.js';
import { runSimulation } from '../../sim/run/run.js';
import { realTwinProblems } from './faults/index.js';
import { asHappened, runReal } from './run-real.js';

/** A row of the fidelity table: a configuration of the guarantees table, or one derived from it. */
interface FidelityRow {
  readonly name: string;
  readonly named: NamedConfiguration;
}

/** Real runs per row by default: fewer make an interval too wide for "agree" to mean anything. */
export const DEFAULT_REAL_RUNS = 20;

const seedOf = (row: string, i: number) => `fidelity-${row}-${i}`;

/**
 * Whether a configuration has a real twin: every one of its first DEFAULT_REAL_RUNS fidelity seeds
 * draws a schedule the real processes can strike. A row whose draw only sometimes has real means (a
 * swarm) is not one: its real seeds would be the ones without the other faults, not the row.
 */
export function hasRealTwin(named: NamedConfiguration): boolean {
  return Array.from({ length: DEFAULT_REAL_RUNS }, (_, i) => i).every((i) => realTwinProblems(configurationRun(named, seedOf(named.name, i))).length === 0);
}

/**
 * The rows with a real twin, the ones the fidelity table compares (docs/FIDELITY.md): every row the
 * guarantees table publishes that has one (hasRealTwin), in the table's order. None is left out:
 * at about 15 s a real run, every twin is worth its time.
 */
export const FIDELITY_ROWS: readonly FidelityRow[] = TABLE_CONFIGURATIONS.filter(hasRealTwin).map((named) => ({ name: named.name, named }));

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
export interface SeedPairs {
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
  /** Its re-simulations kept each process down until its liveness restart really answered (absent in older data: restarted at the liveness start). */
  readonly livenessRestartsAsHappened?: boolean;
  /** Dynomite: its real nodes' peer links carried the configuration's latency and replication lag (absent in older data: loopback). */
  readonly peerLinksConfigured?: boolean;
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
  /** Only rows whose name contains this (or, with commas, any of these). */
  readonly only?: string;
  /**
   * Takes a unit of work — `simulate ROW` (the row's simulated seeds) or `real ROW INDEX` (one real
   * seed) — for this process; false when another process sharing the run took it first. Default: every
   * unit is this process's. Processes sharing a run each measure part of it (sumFidelity adds them up).
   */
  readonly claim?: (unit: string) => boolean;
  /** The measurement so far, after the simulations and after every real run: a run stopped early keeps what it measured. */
  readonly onCheckpoint?: (m: FidelityMeasurement) => void;
  readonly onProgress?: (line: string) => void;
}

export interface FidelityMeasurement {
  readonly rows: readonly RowFidelity[];
  readonly options: Required<Omit<FidelityOptions, 'onProgress' | 'only' | 'claim' | 'onCheckpoint'>>;
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

const addTallies = (a: Tally, b: Tally): Tally =>
  Object.fromEntries(PROPERTY_NAMES.map((p) => [p, { violated: a[p].violated + b[p].violated, exercised: a[p].exercised + b[p].exercised }])) as Tally;

function addPairs(a: PairTally | undefined, b: PairTally | undefined): PairTally | undefined {
  if (!a || !b) return a ?? b;
  return Object.fromEntries(PROPERTY_NAMES.map((p) => [p, { both: a[p].both + b[p].both, simOnly: a[p].simOnly + b[p].simOnly, realOnly: a[p].realOnly + b[p].realOnly, neither: a[p].neither + b[p].neither }])) as PairTally;
}

/** Two parts of one row's measurement (disjoint seeds, measured by processes sharing a run) added up. */
function addRows(a: RowFidelity, b: RowFidelity): RowFidelity {
  const perSeed = addPairs(a.perSeed, b.perSeed);
  return {
    row: a.row,
    description: a.description,
    simSeeds: a.simSeeds + b.simSeeds,
    simulated: addTallies(completeTally(a.simulated), completeTally(b.simulated)),
    simulatedTwins: addTallies(completeTally(a.simulatedTwins), completeTally(b.simulatedTwins)),
    ...(perSeed ? { perSeed } : {}),
    ...(a.livenessRestartsAsHappened && b.livenessRestartsAsHappened ? { livenessRestartsAsHappened: true } : {}),
    ...(a.peerLinksConfigured && b.peerLinksConfigured ? { peerLinksConfigured: true } : {}),
    real: addTallies(completeTally(a.real), completeTally(b.real)),
    realRuns: a.realRuns + b.realRuns,
    skipped: a.skipped + b.skipped,
    replicasEqual: a.replicasEqual && b.replicasEqual ? { simulated: a.replicasEqual.simulated + b.replicasEqual.simulated, real: a.replicasEqual.real + b.replicasEqual.real } : (a.replicasEqual ?? b.replicasEqual),
    faultErrors: [...a.faultErrors, ...b.faultErrors],
    realSeconds: a.realSeconds + b.realSeconds,
  };
}

/** A part that cannot be added to the others (measured with other settings). */
export class FidelityPartsError extends Error {
  override readonly name = 'FidelityPartsError';
}

/**
 * The parts of one run shared by several processes (each measured disjoint units: `claim`) added up
 * row by row, in FIDELITY_ROWS order. Parts measured with other `--runs` or `--sim-seeds` are refused.
 */
export function sumFidelity(parts: readonly FidelityMeasurement[]): FidelityMeasurement {
  const first = parts[0];
  if (!first) throw new FidelityPartsError('no part to add up');
  const other = parts.find((p) => p.options.realRuns !== first.options.realRuns || p.options.simSeeds !== first.options.simSeeds);
  if (other) {
    throw new FidelityPartsError(`parts measured with other settings: --runs ${first.options.realRuns} --sim-seeds ${first.options.simSeeds} and --runs ${other.options.realRuns} --sim-seeds ${other.options.simSeeds}`);
  }
  const rows = FIDELITY_ROWS.flatMap((r) => {
    const mine = parts.flatMap((p) => p.rows.filter((x) => x.row === r.name));
    return mine.length === 0 ? [] : [mine.reduce(addRows)];
  });
  return { options: first.options, rows };
}

const configFor = (row: FidelityRow, seed: string): SimConfig => configurationRun(row.named, seed);

/** Whether a row is picked by `--only`: its name contains the text, or one of its comma-separated parts. */
export const onlyMatches = (only: string | undefined, name: string): boolean => only === undefined || only.split(',').some((part) => part !== '' && name.includes(part));

/**
 * A row's real seeds: the indices of the first `realRuns` seeds whose whole schedule has real means,
 * and how many were skipped before them. The same in every process, so that processes sharing a run
 * claim the same units.
 */
function realSeeds(row: FidelityRow, realRuns: number): { indices: number[]; skipped: number } {
  const indices: number[] = [];
  let skipped = 0;
  for (let i = 0; indices.length < realRuns && i < 10 * realRuns; i++) {
    if (realTwinProblems(configFor(row, seedOf(row.name, i))).length === 0) indices.push(i);
    else skipped++;
  }
  return { indices, skipped };
}

/**
 * Measures every fidelity row: the simulator on many seeds, and real twins on as many of the same
 * seeds as the budget allows (rows take turns, so a slow row does not starve the others), each real
 * seed also run on the simulator so that the two are compared on the same fault schedule. With
 * `claim`, several processes share the work unit by unit and each returns its part.
 */
export async function measureFidelity(options: FidelityOptions = {}): Promise<FidelityMeasurement> {
  const realRuns = options.realRuns ?? DEFAULT_REAL_RUNS;
  const simSeeds = options.simSeeds ?? 40;
  const budgetMs = options.budgetMs ?? 600 * 60_000;
  const progress = options.onProgress ?? (() => undefined);
  const claim = options.claim ?? (() => true);
  const rows = FIDELITY_ROWS.filter((r) => onlyMatches(options.only, r.name));
  const state = rows.map((row) => ({
    row,
    simSeeds: 0,
    simulated: emptyTally(),
    simulatedTwins: emptyTally(),
    perSeed: emptyPairs(),
    real: emptyTally(),
    realRuns: 0,
    skipped: 0,
    seeds: realSeeds(row, realRuns),
    replicas: { simulated: 0, real: 0 },
    faultErrors: [] as string[],
    realMs: 0,
    /** Every real run of the row had its peer links at the configured network (as each reported). */
    peerLinksConfigured: true,
  }));
  const measurement = (): FidelityMeasurement => ({
    options: { realRuns, simSeeds, budgetMs },
    rows: state
      .filter((s) => s.simSeeds > 0 || s.realRuns > 0 || s.faultErrors.length > 0)
      .map((s) => ({
        row: s.row.name,
        description: s.row.named.description,
        simSeeds: s.simSeeds,
        simulated: s.simulated,
        simulatedTwins: s.simulatedTwins,
        perSeed: s.perSeed,
        livenessRestartsAsHappened: true,
        ...(s.row.named.config.topology?.kind === 'dynomite' && s.peerLinksConfigured ? { peerLinksConfigured: true } : {}),
        real: s.real,
        realRuns: s.realRuns,
        skipped: s.skipped,
        replicasEqual: s.row.named.config.topology?.kind === 'dynomite' ? s.replicas : null,
        faultErrors: s.faultErrors,
        realSeconds: Math.round(s.realMs / 1000),
      })),
  });
  for (const s of state) {
    if (!claim(`simulate ${s.row.name}`)) continue;
    for (let i = 0; i < simSeeds; i++) count(s.simulated, (await runSimulation(configFor(s.row, seedOf(s.row.name, i)), { traceHash: false })).report);
    // The row's simulated seeds and its skipped real seeds are counted once, by the process that simulated it.
    s.simSeeds = simSeeds;
    s.skipped = s.seeds.skipped;
    progress(`simulated ${s.row.name}: ${simSeeds} seeds`);
    options.onCheckpoint?.(measurement());
  }
  const started = Date.now();
  // The next real seed of a row that no other process took (null: none left).
  const nextSeed = (s: (typeof state)[number]): number | null => {
    for (let i = s.seeds.indices.shift(); i !== undefined; i = s.seeds.indices.shift()) if (claim(`real ${s.row.name} ${i}`)) return i;
    return null;
  };
  while (state.some((s) => s.seeds.indices.length > 0) && Date.now() - started <= budgetMs) {
    for (const s of state) {
      if (Date.now() - started > budgetMs) break;
      const index = nextSeed(s);
      if (index === null) continue;
      const config = configFor(s.row, seedOf(s.row.name, index));
      const t0 = Date.now();
      let real: Awaited<ReturnType<typeof runReal>>;
      try {
        real = await runReal(config);
      } catch (err) {
        // Processes that would not start are no verdict: the seed is noted, not counted.
        s.faultErrors.push(`${config.seed}: the real run did not complete (${err instanceof Error ? err.message.split('\n')[0] : String(err)})`);
        progress(`real ${s.row.name} seed ${config.seed}: did not complete: ${err instanceof Error ? err.message.split('\n')[0] : String(err)}`);
        options.onCheckpoint?.(measurement());
        continue;
      }
      s.realMs += Date.now() - t0;
      if (real.peerLinks !== 'configured') s.peerLinksConfigured = false;
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
      options.onCheckpoint?.(measurement());
    }
  }
  return measurement();
}
