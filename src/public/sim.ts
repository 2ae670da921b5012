/**
 * `dynoq/sim` — the deterministic simulator: run a configuration or a scenario file, load and
 * validate scenarios, read traces, measure the guarantees table.
 */
export { runSimulation, SIM_EPOCH, SimConfigError } from '../sim/run.js';
export type { RunOptions, SimResult, StruckFault, UnhashedSimResult } from '../sim/run.js';
export { parseSimConfig, simConfigSchema, faultSchema } from '../sim/config.js';
export type { SimConfig, SimConfigInput, Fault } from '../sim/config.js';
export { loadScenario, parseScenario, scenarioConfig, scenarioJsonSchema, scenarioSchema, ScenarioError } from '../sim/scenario.js';
export type { Scenario, ScenarioInput } from '../sim/scenario.js';
export { replayScenario } from '../sim/replay.js';
export type { ScenarioReplay } from '../sim/replay.js';
export { readTrace, parseTrace, TraceFileError } from '../sim/trace-file.js';
export type { TraceContents } from '../sim/trace-file.js';
export { CONFIGURATIONS, configurationRun } from '../sim/configurations.js';
export type { NamedConfiguration } from '../sim/configurations.js';
export { PROPERTIES, PROPERTY_NAMES } from '../model/properties.js';
export type { PropertyName } from '../model/properties.js';
export { measureGuarantees } from '../sim/measure-guarantees.js';
export type { GuaranteeOptions, GuaranteeMeasurement } from '../sim/measure-guarantees.js';
export { guaranteesMarkdown, summarizeRun, foldRow, seedsFor } from '../sim/guarantees.js';
export type { GuaranteeRow, PropertyCell, RunSummary } from '../sim/guarantees.js';
export { generateFaults, applicableFamilies, FAULT_FAMILIES } from '../sim/faults/index.js';
export type { FaultGeneratorOptions, FaultFamily } from '../sim/faults/index.js';
export { SimWorld } from '../sim/world.js';
export type { ClientOptions } from '../sim/world.js';
export { Rng } from '../sim/rng.js';
export { shrink } from '../sim/shrink.js';
export type { ShrinkOptions, ShrinkResult } from '../sim/shrink.js';
/**
 * The zod types the exported schemas are made of. zod is bundled into dynoq, not a dependency: a
 * declaration that names a schema's type (`export const s = scenarioSchema.extend(…)`) refers to
 * these. The build warns when a schema starts using one that is missing here.
 */
export type { ZodArray, ZodBoolean, ZodDefault, ZodDiscriminatedUnion, ZodEnum, ZodLiteral, ZodNullable, ZodNumber, ZodObject, ZodOptional, ZodString, input, output } from 'zod';
export type { $strict } from 'zod/v4/core';
