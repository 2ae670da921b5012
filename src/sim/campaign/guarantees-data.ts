import * as z from 'zod';
import { PROPERTY_NAMES, VIOLATION_KINDS, type PropertyName } from '../../model/properties.js';
import { FAULT_FAMILY_NAMES } from '../faults/index.js';
import { RACE_NAMES, type RaceName } from '../workloads/race-names.js';
import type { GuaranteeRow, MechanismScenario } from './guarantees.js';
import { mechanismOf, type Mechanism } from './mechanisms.js';
import { setupOf } from './setup-facets.js';

/**
 * docs/GUARANTEES.json: everything the guarantees page shows, per configuration and property, so that
 * the Markdown and HTML pages are rendered from it alone (`dynoq guarantees --render-from FILE`).
 */
const count = z.number().int().nonnegative();
const rate = z.number().min(0).max(1);

const cellSchema = z
  .object({
    violated: count,
    exercised: count,
    interval: z.object({ low: rate, high: rate }).strict(),
    affectedMedian: z.number().nonnegative(),
    affectedMax: count,
    firstSeed: z.string().nullable(),
    mechanisms: z.array(z.object({ key: z.string(), runs: count, firstSeed: z.string() }).strict()),
  })
  .strict();

const facetsSchema = z
  .object({
    topology: z.enum(['primary-replica', 'dynomite']),
    mode: z.enum(['atomic', 'legacy']),
    consistency: z.string().nullable(),
    serverTime: z.boolean(),
    durable: z.string().nullable(),
    persistence: z.string(),
    failoverClient: z.boolean(),
  })
  .strict();

const FAULT_DRAWS = ['none', 'swarm', ...FAULT_FAMILY_NAMES] as const;

const rowSchema = z
  .object({
    /** The configuration's name: `dynoq sim --configuration NAME --seed SEED` replays any of its runs. */
    name: z.string(),
    /** The set-up (options, without the workload profile): a line of the decision matrix. */
    setup: z.string(),
    /** The key its mechanism scenarios are filed under (scenarioKey): the set-up with its workload profile. */
    scenarioSetup: z.string(),
    facets: facetsSchema,
    faults: z.enum(FAULT_DRAWS),
    profile: z.string(),
    description: z.string(),
    runs: count,
    exposedRuns: count.nullable(),
    promotionRuns: count,
    divergedRuns: count.nullable(),
    cells: z.record(z.enum(PROPERTY_NAMES), cellSchema),
    lateness: z.object({ p50: z.number(), p99: z.number(), max: z.number() }).strict(),
    boundMs: z.number(),
    // A race the data predates was made by none of its runs.
    raceRuns: z.object(Object.fromEntries(RACE_NAMES.map((race) => [race, count.default(0)])) as Record<RaceName, ReturnType<typeof count.default>>).strict(),
  })
  .strict();

export const guaranteesDataSchema = z
  .object({
    format: z.literal(1),
    /** The command that measured it. */
    command: z.string(),
    /** Runs, wall time and threads of the measurement, when known. */
    timing: z.string().nullable(),
    /** Seeds per configuration (g0 … gN-1). */
    seeds: count,
    rows: z.array(rowSchema).min(1),
    /** One shrunk scenario per (set-up, mechanism) that shows it. */
    scenarios: z.array(z.object({ setup: z.string(), key: z.string(), file: z.string() }).strict()),
    /** What to do: each distinct piece of advice once… */
    advice: z.array(z.string()),
    /** …and the one for each mechanism that has advice (`kind ← cause` → its index in `advice`). */
    adviceOf: z.record(z.string(), count),
  })
  .strict();

export type GuaranteesData = z.output<typeof guaranteesDataSchema>;
export type PublishedRow = GuaranteesData['rows'][number];
export type PublishedCell = PublishedRow['cells'][PropertyName];

/** A guarantees file that cannot be rendered: what is wrong with it, by path. */
export class GuaranteesDataError extends Error {
  override readonly name = 'GuaranteesDataError';
}

/** Reads docs/GUARANTEES.json text, refusing anything the pages could not render. */
export function parseGuaranteesData(text: string, source: string): GuaranteesData {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    throw new GuaranteesDataError(`${source} is not JSON: ${(err as Error).message}`);
  }
  const parsed = guaranteesDataSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new GuaranteesDataError(`${source}: ${issue.path.join('.') || '(top)'}: ${issue.message}`);
  }
  const { advice, adviceOf } = parsed.data;
  const beyond = Object.entries(adviceOf).find(([, i]) => i >= advice.length);
  if (beyond) throw new GuaranteesDataError(`${source}: adviceOf.${beyond[0]}: no advice number ${beyond[1]} (there are ${advice.length})`);
  for (const row of parsed.data.rows) {
    const missing = PROPERTY_NAMES.find((p) => !(p in row.cells));
    if (missing) throw new GuaranteesDataError(`${source}: row ${row.name} has no ${missing} cell (measured before that property existed: measure again)`);
  }
  return parsed.data;
}

/** The published form of measured rows, with the advice for every mechanism they show. */
export function guaranteesData(input: {
  readonly rows: readonly GuaranteeRow[];
  readonly command: string;
  readonly timing: string | null;
  readonly seeds: number;
  readonly scenarios: readonly MechanismScenario[];
  readonly advise: (mechanism: Mechanism) => string | null;
}): GuaranteesData {
  const rows = input.rows.map((r): PublishedRow => {
    const setup = setupOf(r.configuration);
    return {
      name: r.configuration.name,
      setup: setup.name,
      scenarioSetup: r.configuration.setup,
      facets: setup.facets,
      faults: r.configuration.faults,
      profile: r.configuration.profile,
      description: r.configuration.description,
      runs: r.runs,
      exposedRuns: r.exposedRuns,
      promotionRuns: r.promotionRuns,
      divergedRuns: r.divergedRuns,
      // Published by key: the data file names a mechanism as the page prints it.
      cells: Object.fromEntries(PROPERTY_NAMES.map((p) => [p, { ...r.cells[p], mechanisms: r.cells[p].mechanisms.map(({ key, runs, firstSeed }) => ({ key, runs, firstSeed })) }])) as Record<PropertyName, PublishedCell>,
      lateness: r.lateness,
      boundMs: r.boundMs,
      raceRuns: r.raceRuns,
    };
  });
  return { format: 1, command: input.command, timing: input.timing, seeds: input.seeds, rows, scenarios: [...input.scenarios], ...adviceOfRows(rows, input.advise) };
}

/** The numbered advice texts of the mechanisms the rows show, in the order they first appear, and each mechanism's number. */
function adviceOfRows(rows: readonly PublishedRow[], advise: (mechanism: Mechanism) => string | null): Pick<GuaranteesData, 'advice' | 'adviceOf'> {
  const texts = new Map<string, number>();
  const adviceOf: Record<string, number> = {};
  for (const r of rows) {
    for (const cell of Object.values(r.cells)) {
      for (const { key } of cell.mechanisms) {
        const text = advise(mechanismOf(key));
        if (!text) continue;
        if (!texts.has(text)) texts.set(text, texts.size);
        adviceOf[key] = texts.get(text)!;
      }
    }
  }
  const sorted = Object.fromEntries(Object.entries(adviceOf).sort(([a], [b]) => (a < b ? -1 : 1)));
  return { advice: [...texts.keys()], adviceOf: sorted };
}

/** Published data with its advice derived again from `advise` (the code's advice changes; the measurement does not). */
export function withAdvice(data: GuaranteesData, advise: (mechanism: Mechanism) => string | null): GuaranteesData {
  return { ...data, ...adviceOfRows(data.rows, advise) };
}

/** The advice for a mechanism, if the data has one. */
export function adviceFor(data: GuaranteesData, key: string): string | null {
  const i = data.adviceOf[key];
  return i === undefined ? null : (data.advice[i] ?? null);
}

/** The property a mechanism (`kind ← cause`) breaks, or null for an allowed finding or an unknown kind. */
export function propertyOfMechanism(key: string): PropertyName | null {
  return VIOLATION_KINDS[mechanismOf(key).kind]?.breaks ?? null;
}

/** The file's text: one row, scenario or piece of advice per line, so that a new measurement diffs by row. */
export function guaranteesJson(data: GuaranteesData): string {
  const list = (xs: readonly unknown[]) => (xs.length === 0 ? '[]' : `[\n${xs.map((x) => JSON.stringify(x)).join(',\n')}\n]`);
  const { rows, scenarios, advice, adviceOf, ...head } = data;
  const fields = [
    ...Object.entries(head).map(([k, v]) => `${JSON.stringify(k)}: ${JSON.stringify(v)}`),
    `"rows": ${list(rows)}`,
    `"scenarios": ${list(scenarios)}`,
    `"advice": ${list(advice)}`,
    `"adviceOf": ${JSON.stringify(adviceOf, null, 0).replace(/,"/g, ',\n"')}`,
  ];
  return `{\n${fields.join(',\n')}\n}\n`;
}
