import { readFileSync, writeFileSync } from 'node:fs';
import { runSimulation } from '../../sim/run.js';
import { PROPERTY_NAMES } from '../../model/properties.js';
import { loadScenario, scenarioConfig } from '../../sim/scenario.js';

/**
 * Re-runs each scenario; exit 1 if an outcome or a recorded trace hash differs. With `record`,
 * writes what this run measured into each file's `expect` instead of comparing.
 */
export async function replayCommand(files: readonly string[], flags: { record?: boolean } = {}): Promise<number> {
  let failures = 0;
  for (const file of files) {
    const scenario = loadScenario(file);
    const config = scenarioConfig(scenario);
    console.log(`seed ${config.seed}`);
    const result = await runSimulation(config);
    const problems: string[] = [];
    for (const p of scenario.expect.hold) if (!result.report.properties[p]) problems.push(`${p} expected to hold, violated`);
    for (const p of scenario.expect.violate) if (result.report.properties[p]) problems.push(`${p} expected to be violated, held`);
    if (scenario.expect.traceHash && scenario.expect.traceHash !== result.traceHash) {
      problems.push(`trace hash ${result.traceHash} differs from the recorded ${scenario.expect.traceHash}`);
    }
    const held = PROPERTY_NAMES.filter((p) => result.report.properties[p]);
    if (flags.record) {
      const json = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
      json.expect = { hold: held, violate: PROPERTY_NAMES.filter((p) => !result.report.properties[p]), traceHash: result.traceHash };
      writeFileSync(file, `${JSON.stringify(json, null, 2)}\n`);
      console.log(`recorded ${file}: held [${held.join(', ')}], ${JSON.stringify(result.report.counts)}`);
      continue;
    }
    if (problems.length === 0) {
      console.log(`ok   ${file} (${scenario.name}): held [${held.join(', ')}], trace ${result.traceHash.slice(0, 16)}…`);
    } else {
      failures++;
      console.log(`FAIL ${file} (${scenario.name}):\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    }
  }
  console.log(`${files.length - failures} of ${files.length} scenario(s) replayed as recorded`);
  return failures > 0 ? 1 : 0;
}
