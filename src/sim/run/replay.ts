import { PROPERTY_NAMES, type PropertyName } from '../../model/properties.js';
import { runSimulation, type SimResult } from './run.js';
import { scenarioConfig, type Scenario } from './scenario.js';

/** A scenario re-run and compared with what its file expects. */
export interface ScenarioReplay {
  readonly result: SimResult;
  /** Properties that held in this run. */
  readonly held: readonly PropertyName[];
  /** Properties this run violated. */
  readonly violated: readonly PropertyName[];
  /** Each way the run differs from the file's `expect` (empty: it replayed as recorded). */
  readonly problems: readonly string[];
}

/** Re-runs a scenario and lists every difference from its `expect` (outcome and trace hash). */
export async function replayScenario(scenario: Scenario): Promise<ScenarioReplay> {
  const result = await runSimulation(scenarioConfig(scenario));
  const problems: string[] = [];
  for (const p of scenario.expect.hold) if (!result.report.properties[p]) problems.push(`${p} expected to hold, violated`);
  for (const p of scenario.expect.violate) if (result.report.properties[p]) problems.push(`${p} expected to be violated, held`);
  if (scenario.expect.traceHash && scenario.expect.traceHash !== result.traceHash) {
    problems.push(`trace hash ${result.traceHash} differs from the recorded ${scenario.expect.traceHash}`);
  }
  return {
    result,
    held: PROPERTY_NAMES.filter((p) => result.report.properties[p]),
    violated: PROPERTY_NAMES.filter((p) => !result.report.properties[p]),
    problems,
  };
}
