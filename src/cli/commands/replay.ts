import { readFileSync, writeFileSync } from 'node:fs';
import { PROPERTY_NAMES } from '../../model/properties.js';
import { replayScenario } from '../../sim/run/replay.js';
import { scenarioConfig } from '../../sim/run/scenario.js';
import { loadScenarioFile } from '../scenario-file.js';
import { EXIT } from '../exit-codes.js';
import { emitJson } from '../output.js';
import { regularFileOrThrow } from '../regular-file.js';

/**
 * Re-runs each scenario; exit 1 if an outcome or a recorded trace hash differs. With `record`,
 * writes what this run measured into each file's `expect` instead of comparing.
 */
export async function replayCommand(files: readonly string[], flags: { record?: boolean; json?: boolean } = {}): Promise<number> {
  let failures = 0;
  // Every file is validated before the first run: a typo in the last file fails fast.
  for (const file of files) regularFileOrThrow(file);
  const scenarios = files.map((file) => ({ file, scenario: loadScenarioFile(file) }));
  const outcomes: { file: string; name: string; seed: string; held: string[]; violated: string[]; traceHash: string; matched: boolean; problems: string[] }[] = [];
  for (const { file, scenario } of scenarios) {
    if (scenario.real) {
      // A real twin has no trace hash and its timing varies: what it must keep is checked, not more.
      console.log(`seed ${scenario.seed} (real twin)`);
      const { runReal } = await import('../../real/twin/run-real.js');
      const result = await runReal(scenarioConfig(scenario));
      const held = PROPERTY_NAMES.filter((p) => result.report.properties[p]);
      const violated = PROPERTY_NAMES.filter((p) => !result.report.properties[p]);
      const problems = scenario.expect.hold.filter((p) => !result.report.properties[p]).map((p) => `${p} expected to hold, violated (real twin)`);
      outcomes.push({ file, name: scenario.name, seed: scenario.seed, held, violated, traceHash: '', matched: problems.length === 0, problems });
      if (flags.record) {
        const json = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
        json.expect = { hold: held, violate: violated };
        writeFileSync(file, `${JSON.stringify(json, null, 2)}\n`);
        console.log(`recorded ${file} (real twin): held [${held.join(', ')}]`);
      } else if (problems.length === 0) console.log(`ok   ${file} (${scenario.name}, real twin): held [${held.join(', ')}]${violated.length > 0 ? `, violated [${violated.join(', ')}]` : ''}`);
      else {
        failures++;
        console.log(`FAIL ${file} (${scenario.name}, real twin):\n${problems.map((p) => `  - ${p}`).join('\n')}`);
      }
      continue;
    }
    console.log(`seed ${scenario.seed}`);
    const { result, held, violated, problems } = await replayScenario(scenario);
    outcomes.push({ file, name: scenario.name, seed: scenario.seed, held: [...held], violated: [...violated], traceHash: result.traceHash, matched: problems.length === 0, problems: [...problems] });
    if (flags.record) {
      const json = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
      json.expect = { hold: held, violate: PROPERTY_NAMES.filter((p) => !result.report.properties[p]), traceHash: result.traceHash };
      writeFileSync(file, `${JSON.stringify(json, null, 2)}\n`);
      console.log(`recorded ${file}: held [${held.join(', ')}], ${JSON.stringify(result.report.counts)}`);
      continue;
    }
    if (problems.length === 0) {
      // a replayed failure (simulate()'s, explore's) says which property it breaks, not only what held
      const broke = violated.length > 0 ? `, violated [${violated.join(', ')}] as recorded` : '';
      console.log(`ok   ${file} (${scenario.name}): held [${held.join(', ')}]${broke}, trace ${result.traceHash.slice(0, 16)}…`);
    } else {
      failures++;
      console.log(`FAIL ${file} (${scenario.name}):\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    }
  }
  if (!flags.record) console.log(`${files.length - failures} of ${files.length} scenario(s) replayed as recorded`);
  if (flags.json) emitJson({ replayed: outcomes.length, differed: failures, recorded: Boolean(flags.record), scenarios: outcomes });
  return failures > 0 ? EXIT.violated : EXIT.ok;
}
