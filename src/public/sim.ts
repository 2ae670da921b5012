/**
 * `dynoq/sim` — the deterministic simulator: run a configuration or a scenario file, load and
 * validate scenarios, read traces, measure the guarantees table.
 */
export { runSimulation, SIM_EPOCH, SimConfigError } from '../sim/run/run.js';
export type { RunOptions, SimResult, StruckFault, UnhashedSimResult } from '../sim/run/run.js';
export type { KernelStop, WallDeadline } from '../sim/kernel/kernel.js';
export { TimeBudgetReachedError } from '../sim/run/time-budget.js';
export { runBudget } from '../sim/run/run-budget.js';
export type { RunBudget } from '../sim/run/run-budget.js';
export type { ScriptMode } from '../redis/script-mode.js';
export type { ScriptBudget } from '../redis/script-budget.js';
export { configForFile, parseSimConfig, simConfigSchema, faultSchema } from '../sim/run/config.js';
export type { SimConfig, SimConfigInput, Fault } from '../sim/run/config.js';
export { loadScenario, parseScenario, scenarioConfig, scenarioJsonSchema, scenarioSchema, ScenarioError } from '../sim/run/scenario.js';
export type { Scenario, ScenarioInput } from '../sim/run/scenario.js';
export { replayScenario } from '../sim/run/replay.js';
export type { ScenarioReplay } from '../sim/run/replay.js';
export { readTrace, parseTrace, TraceFileError } from '../sim/run/trace-file.js';
export type { TraceContents } from '../sim/run/trace-file.js';
export { CONFIGURATIONS, configurationRun } from '../sim/run/configurations.js';
export type { NamedConfiguration } from '../sim/run/configurations.js';
export { PROPERTIES, PROPERTY_NAMES } from '../model/properties.js';
export type { PropertyName } from '../model/properties.js';
export { measureGuarantees } from '../sim/campaign/measure-guarantees.js';
export type { GuaranteeOptions, GuaranteeMeasurement } from '../sim/campaign/measure-guarantees.js';
export { summarizeRun, foldRow, seedsFor } from '../sim/campaign/guarantees.js';
export { guaranteesData, guaranteesJson, parseGuaranteesData, GuaranteesDataError } from '../sim/campaign/guarantees-data.js';
export type { GuaranteesData, PublishedRow, PublishedCell } from '../sim/campaign/guarantees-data.js';
export { guaranteesPage } from '../sim/campaign/guarantees-page.js';
export { decide, RECOMMENDATION_RULE } from '../sim/campaign/decision.js';
export type { Decision, MatrixCell, MatrixLine, Verdict } from '../sim/campaign/decision.js';
export type { GuaranteeRow, PropertyCell, RunSummary } from '../sim/campaign/guarantees.js';
export type { RaceName } from '../sim/workloads/race-names.js';
export { generateFaults, applicableFamilies, FAULT_FAMILIES } from '../sim/faults/index.js';
export type { FaultGeneratorOptions, FaultFamily } from '../sim/faults/index.js';
export { SimWorld } from '../sim/run/world.js';
export type { ClientOptions } from '../sim/run/world.js';
export { Rng } from '../sim/kernel/rng.js';
export { shrink } from '../sim/campaign/shrink.js';
export type { ShrinkOptions, ShrinkResult } from '../sim/campaign/shrink.js';
/**
 * The zod types the exported schemas are made of. zod is bundled into dynoq, not a dependency: a
 * declaration that names a schema's type (`export const s = scenarioSchema.extend(…)`) refers to
 * these. The build warns when a schema starts using one that is missing here.
 */
export type { ZodArray, ZodBoolean, ZodDefault, ZodDiscriminatedUnion, ZodEnum, ZodLiteral, ZodNullable, ZodNumber, ZodObject, ZodOptional, ZodString, input, output } from 'zod';
export type { $strict } from 'zod/v4/core';
