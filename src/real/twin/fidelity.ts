import { PROPERTIES, PROPERTY_NAMES, type PropertyName } from '../../model/properties.js';
import { parseSimConfig, type SimConfig } from '../../sim/run/config.js';
import { CONFIGURATIONS, configurationRun, type NamedConfiguration } from '../../sim/run/configurations.js';
import { wilson } from '../../sim/campaign/guarantees.js';
import { runSimulation } from '../../sim/run/run.js';
import { realTwinProblems } from './real-faults.js';
import { runReal } from './run-real.js';

/** A row of the fidelity table: a configuration of the guarantees table, or one derived from it. */
export interface FidelityRow {
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
].map((name) => ({ name, named: tableRow(name) }));

/** Per property: runs that violated it out of runs that exercised it. */
export type Tally = Record<PropertyName, { violated: number; exercised: number }>;

const emptyTally = (): Tally => Object.fromEntries(PROPERTY_NAMES.map((p) => [p, { violated: 0, exercised: 0 }])) as Tally;

function count(t: Tally, report: { properties: Record<PropertyName, boolean>; exercised: Record<PropertyName, boolean> }): void {
  for (const p of PROPERTY_NAMES) {
    if (!report.exercised[p]) continue;
    t[p].exercised++;
    if (!report.properties[p]) t[p].violated++;
  }
}

export interface RowFidelity {
  readonly row: string;
  readonly description: string;
  /** Simulated seeds behind `simulated`. */
  readonly simSeeds: number;
  /** The simulator on `simSeeds` seeds (the table's own measurement of the row). */
  readonly simulated: Tally;
  /** The simulator on exactly the seeds that also ran for real (same schedule of faults). */
  readonly simulatedTwins: Tally;
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

export type Agreement = 'agree' | 'simulator harsher' | 'simulator gentler';

/** Agree when the 95 % intervals of the two rates overlap; otherwise which side is harsher. */
export function agreement(sim: { violated: number; exercised: number }, real: { violated: number; exercised: number }): Agreement {
  const s = wilson(sim.violated, sim.exercised);
  const r = wilson(real.violated, real.exercised);
  if (s.low > r.high) return 'simulator harsher';
  if (s.high < r.low) return 'simulator gentler';
  return 'agree';
}

export interface FidelityOptions {
  /** Real runs per row at most (default 5). */
  readonly realRuns?: number;
  /** Seeds per row on the simulator (default 40). */
  readonly simSeeds?: number;
  /** Wall-clock budget for the real runs, ms: rows take turns until it is spent (default 20 min). */
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
  const rows = FIDELITY_ROWS.map((r) => fresh.rows.find((x) => x.row === r.name) ?? earlier?.rows.find((x) => x.row === r.name)).filter((r): r is RowFidelity => r !== undefined);
  return { options: fresh.options, rows };
}

const seedOf = (row: string, i: number) => `fidelity-${row}-${i}`;

/**
 * Measures every fidelity row: the simulator on many seeds, and real twins on as many of the same
 * seeds as the budget allows (rows take turns, so a slow row does not starve the others), each real
 * seed also run on the simulator so that the two are compared on the same fault schedule.
 */
export async function measureFidelity(options: FidelityOptions = {}): Promise<FidelityMeasurement> {
  const realRuns = options.realRuns ?? 5;
  const simSeeds = options.simSeeds ?? 40;
  const budgetMs = options.budgetMs ?? 20 * 60_000;
  const progress = options.onProgress ?? (() => undefined);
  const rows = FIDELITY_ROWS.filter((r) => options.only === undefined || r.name.includes(options.only));
  const configFor = (row: FidelityRow, seed: string): SimConfig => parseSimConfig(configurationRun(row.named, seed));
  const state = rows.map((row) => ({
    row,
    simulated: emptyTally(),
    simulatedTwins: emptyTally(),
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
      const sim = await runSimulation(config, { traceHash: false });
      count(s.simulatedTwins, sim.report);
      if (sim.replicas?.equal) s.replicas.simulated++;
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

/** docs/FIDELITY.md from a measurement. */
export function formatFidelity(m: FidelityMeasurement, explanations: Explanations = {}): string {
  const lines = [
    '# Fidelity: the simulator next to real processes',
    '',
    `Generated by \`npm run fidelity\` (\`dynoq fidelity --runs ${m.options.realRuns} --sim-seeds ${m.options.simSeeds} --budget-minutes ${Math.round(m.options.budgetMs / 60_000)} --out docs/FIDELITY.md\`, data in docs/FIDELITY.json; \`--only ROW\` measures one row again into it); do not edit by hand.`,
    '',
    `Each row is a configuration of the guarantees table (docs/GUARANTEES.md) run twice: on the simulator (${m.options.simSeeds} seeds), and as its **real twin** — the same configuration, workload profile and fault schedule on real processes on loopback (redis-server primary with two replicas and three Sentinels; or three Dynomite nodes built from \`../shared/vendor/\`, each with its own redis-server), in real time, judged by the same checker (\`dynoq sim --real\`). Real runs are slow, so each row has at most ${m.options.realRuns} (within a ${Math.round(m.options.budgetMs / 60_000)}-minute budget for all rows), and each real seed also runs on the simulator: the column *simulated, same seeds* compares the two on the very same fault schedules.`,
    '',
    'A cell is *runs that violated the property / runs that exercised it (95 % Wilson interval)*. The verdict compares the simulated rate with the real one: **agree** when the intervals overlap, **simulator harsher** when the simulator breaks the property more often than reality can, **simulator gentler** when reality breaks it more often than the simulator says. With a handful of real runs an interval is wide: *agree* then means "no evidence of a difference", not proof of none.',
    '',
    'Real faults are real means: SIGKILL and a restart from the append-only file (or without it, for faults that lose data), SIGSTOP/SIGCONT, a client whose connections are closed, a client clock set off in its process, and on Dynomite a partition between two nodes held in a TCP proxy on each peer link (bytes held, delivered in order at the heal unless the connection closed meanwhile). Faults with no real means here — partitions on a primary with replicas, lag spikes, a store node\'s clock, a zone-failover client — are not run: seeds whose schedule has one are skipped and counted.',
    '',
    'Scoring a refused write: on a real Dynomite a write answered as refused (an ack voted down to 0) may have run on one replica, and the client cannot tell; the real twin scores every refused write on Dynomite **unknown**. The simulator knows, and scores a refusal unknown exactly when some replica ran it (SPEC §6.1).',
    '',
    '| row | real runs | properties that disagree |',
    '|---|---|---|',
  ];
  for (const r of m.rows) {
    const disagree = PROPERTY_NAMES.filter((p) => r.real[p].exercised > 0 && r.simulated[p].exercised > 0 && agreement(r.simulated[p], r.real[p]) !== 'agree');
    lines.push(`| ${r.row} | ${r.realRuns} | ${disagree.length === 0 ? 'none (agree)' : disagree.map((p) => `${PROPERTIES[p].label}: ${agreement(r.simulated[p], r.real[p])}`).join('; ')} |`);
  }
  for (const r of m.rows) {
    lines.push('', `## ${r.row}`, '', `${r.description}. ${r.simSeeds} simulated seeds; ${r.realRuns} real run(s), ${r.realSeconds} s on real processes${r.skipped > 0 ? `; ${r.skipped} seed(s) skipped (a fault with no real means)` : ''}.`, '');
    lines.push('| property | simulated | simulated, same seeds | real | verdict |', '|---|---|---|---|---|');
    for (const p of PROPERTY_NAMES) {
      const verdict = r.real[p].exercised === 0 || r.simulated[p].exercised === 0 ? 'not compared (not exercised)' : agreement(r.simulated[p], r.real[p]);
      lines.push(`| ${PROPERTIES[p].label} | ${rate(r.simulated[p])} | ${rate(r.simulatedTwins[p])} | ${rate(r.real[p])} | ${verdict} |`);
    }
    if (r.replicasEqual) lines.push('', `Replicas equal at the end: simulated ${r.replicasEqual.simulated}/${r.realRuns} (same seeds), real ${r.replicasEqual.real}/${r.realRuns}.`);
    if (r.faultErrors.length > 0) lines.push('', `Real runs not counted or faults that failed to strike: ${r.faultErrors.join('; ')}.`);
    const why = explanations[r.row];
    if (why) lines.push('', `**Why they differ.** ${why}`);
  }
  lines.push('');
  return lines.join('\n');
}
