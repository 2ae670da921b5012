import { readFileSync } from 'node:fs';
import * as z from 'zod';
import { issueLines } from '../../runtime/zod-issues.js';
import { PROPERTY_NAMES } from '../../model/properties.js';
import { simConfigSchema, type SimConfig } from './config.js';
import { configProblems } from './config-problems.js';
import { notRegularFile } from '../../runtime/regular-file.js';
import { deprecatedFaultFields, requireFaultTarget } from './fault-fields.js';

const property = z.enum(PROPERTY_NAMES);

/** A scenario file: a simulation configuration plus its name, story and measured expectations. */
export const scenarioSchema = simConfigSchema
  .extend({
    name: z.string().min(1).regex(/^[a-z0-9][a-z0-9-]*$/, 'lower-case letters, digits and -').describe("the scenario's name: lower-case letters, digits and -"),
    description: z.string().min(1).describe('what the scenario shows, for a reader'),
    real: z
      .boolean()
      .optional()
      .describe('run it on real processes (its real twin: redis-server with Sentinel, or Dynomite, on loopback) instead of the simulator; replay then checks expect.hold only: a real run is not deterministic and has no trace hash'),
    expect: z
      .object({
        /** Properties the run must keep. */
        hold: z.array(property).default([]).describe('properties the run must keep (default none)'),
        /** Properties the run is known to violate (a regression if they start holding). */
        violate: z.array(property).default([]).describe('properties the run is known to violate: a regression if they start holding (default none)'),
        /** The trace hash this run produced when the expectations were measured. */
        traceHash: z.string().regex(/^[0-9a-f]{64}$/).optional().describe('the trace hash measured when the expectations were recorded; replay fails when it differs'),
      })
      .strict()
      .describe('what replay checks: properties held and violated, and the trace hash'),
  })
  .strict();

/**
 * A loaded scenario; `deprecations` notes each old field name the file still uses (empty when none;
 * optional so that a scenario built by `scenarioSchema.parse` is one too).
 */
export type Scenario = z.output<typeof scenarioSchema> & { readonly deprecations?: readonly string[] };
export type ScenarioInput = z.input<typeof scenarioSchema>;

/** A scenario that failed validation; `issues` name each bad field and what was expected. */
export class ScenarioError extends Error {
  readonly code = 'INVALID_SCENARIO';
  constructor(
    readonly file: string,
    readonly issues: readonly string[],
  ) {
    super(`${file}: invalid scenario\n${issues.map((i) => `  - ${i}`).join('\n')}`);
    this.name = 'ScenarioError';
  }
}

export function parseScenario(input: unknown, file = '<scenario>'): Scenario {
  const parsed = scenarioSchema.safeParse(input);
  if (!parsed.success) {
    throw new ScenarioError(file, issueLines(parsed.error.issues));
  }
  const problems = configProblems(parsed.data);
  if (problems.length > 0) throw new ScenarioError(file, problems);
  return { ...parsed.data, deprecations: deprecatedFaultFields(input) };
}

export function loadScenario(file: string): Scenario {
  let text: string;
  const notRegular = notRegularFile(file);
  if (notRegular !== undefined) throw new ScenarioError(file, [`cannot read: ${notRegular}`]);
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new ScenarioError(file, [`cannot read: ${err instanceof Error ? err.message : String(err)}`]);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw new ScenarioError(file, [`not JSON: ${err instanceof Error ? err.message : String(err)}`]);
  }
  return parseScenario(json, file);
}

/** The simulation part of a scenario. */
export function scenarioConfig(s: Scenario): SimConfig {
  const { name: _name, description: _description, expect: _expect, real: _real, deprecations: _deprecations, ...config } = s;
  return config;
}

/** JSON Schema for editors (docs/scenario.schema.json). */
export function scenarioJsonSchema(): unknown {
  return z.toJSONSchema(scenarioSchema, { io: 'input', override: requireFaultTarget });
}
