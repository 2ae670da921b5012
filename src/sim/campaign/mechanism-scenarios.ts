import { createHash } from 'node:crypto';
import { PROPERTY_NAMES, VIOLATION_KINDS } from '../../model/properties.js';
import { adviceForMechanism } from './advice.js';
import { configForFile } from '../run/config.js';
import { configurationRun } from '../run/configurations.js';
import { describeExposure } from '../faults/index.js';
import { configurationNamed } from './guarantees.js';
import { classifyFindings, mechanismKey, type Mechanism } from './mechanisms.js';
import type { SimResult, UnhashedSimResult } from '../run/run.js';
import { SIM_EPOCH } from '../run/world.js';
import { shrink } from './shrink.js';

export interface MechanismScenarioFile {
  /** The set-up it was shrunk on (a row's configuration without its fault draw): it shows the mechanism there only. */
  readonly setup: string;
  readonly mechanism: Mechanism;
  readonly name: string;
  /** The scenario as written to scenarios/mechanisms/NAME.json. */
  readonly scenario: Record<string, unknown>;
}

function findingOf(r: SimResult | UnhashedSimResult, mechanism: Mechanism) {
  const key = mechanismKey(mechanism);
  const mechanisms = classifyFindings(r.report.violations, r.history, r.faults);
  const failing = r.report.violations.filter((v) => VIOLATION_KINDS[v.kind].breaks !== null);
  const i = mechanisms.findIndex((m) => mechanismKey(m) === key);
  return i < 0 ? undefined : failing[i];
}

const MAX_NAME = 90;

function slug(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');
}

/**
 * A scenario's file name: the slug of its set-up and mechanism, shortened with a hash of the whole
 * when too long, so that two mechanisms that differ only past the cut never share a file (they did:
 * `node-crash (requests refused) + node-crash (restarted)` and `… + node-crash (writes lost)`).
 */
export function scenarioName(setup: string, mechanism: Mechanism): string {
  const full = slug(`${setup}-${mechanism.kind}-from-${mechanism.cause}`);
  if (full.length <= MAX_NAME) return full;
  const hash = createHash('sha256').update(full).digest('hex').slice(0, 8);
  return `${full.slice(0, MAX_NAME - 9).replace(/-$/, '')}-${hash}`;
}

/** A causal paragraph for one finding of a run, from its history and its faults' exposure. */
function explain(r: SimResult, mechanism: Mechanism, description: string): string {
  const v = findingOf(r, mechanism)!;
  const rel = (t: number) => `t+${Math.round(t - SIM_EPOCH)} ms`;
  const detail = v.detail.replace(/\b(1\d{12}(?:\.\d+)?)\b/g, (m) => rel(Number(m)));
  const struck = r.faults
    .filter((f) => f.exposure.struck)
    .map((f) => `${f.fault.kind} at ${rel(f.t)} (${describeExposure(f.exposure.counts)}${f.exposure.ids.includes(v.id) ? `, including ${v.id}` : ''})`);
  const advice = adviceForMechanism(mechanism);
  return [
    `${description}.`,
    `${VIOLATION_KINDS[v.kind].label} of ${v.id}: ${detail}.`,
    struck.length > 0 ? `What struck: ${struck.join('; ')}.` : 'No fault struck: the queue got there on its own.',
    `Mechanism (classified from the run): ${mechanismKey(mechanism)}.`,
    advice ? `What to do: ${advice}` : '',
  ]
    .filter(Boolean)
    .join(' ');
}

/** Shrinks the first run of a configuration that shows a mechanism to the smallest that still shows it. */
export async function shrinkMechanism(input: { configuration: string; seed: string; mechanism: Mechanism; maxRuns?: number }): Promise<MechanismScenarioFile> {
  const named = configurationNamed(input.configuration)!;
  const config = configurationRun(named, input.seed);
  const shows = (r: SimResult | UnhashedSimResult) => findingOf(r, input.mechanism) !== undefined;
  const small = await shrink(config, shows, { keepLiveness: VIOLATION_KINDS[input.mechanism.kind].breaks === 'atLeastOnce', maxRuns: input.maxRuns ?? 25, unhashedCandidates: true });
  const name = scenarioName(named.setup, input.mechanism);
  const held = PROPERTY_NAMES.filter((p) => small.result.report.properties[p]);
  const violated = PROPERTY_NAMES.filter((p) => !small.result.report.properties[p]);
  return {
    setup: named.setup,
    mechanism: input.mechanism,
    name,
    scenario: {
      name,
      description: explain(small.result, input.mechanism, `${named.description} (shrunk from seed ${input.seed} of ${named.name} in ${small.runs} runs)`),
      ...configForFile(small.config),
      keepTrace: false,
      expect: { hold: held, violate: violated, traceHash: small.result.traceHash },
    },
  };
}
