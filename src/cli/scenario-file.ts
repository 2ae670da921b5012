import { loadScenario, type Scenario } from '../sim/run/scenario.js';

/** Loads a scenario file for a command; each deprecated field it still uses is one warning line on stderr. */
export function loadScenarioFile(file: string): Scenario {
  const scenario = loadScenario(file);
  for (const note of scenario.deprecations ?? []) console.error(`warning: ${file}: ${note}`);
  return scenario;
}
