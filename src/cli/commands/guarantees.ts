import { join } from 'node:path';
import { adviceForMechanism } from '../../sim/campaign/advice.js';
import { guaranteesMarkdown, scenarioKey, type GuaranteeRow, type MechanismScenario } from '../../sim/campaign/guarantees.js';
import { configurationsMatching, measureGuarantees } from '../../sim/campaign/measure-guarantees.js';
import type { MechanismScenarioFile } from '../../sim/campaign/mechanism-scenarios.js';
import { mechanismKey, type Mechanism } from '../../sim/campaign/mechanisms.js';
import { runPoolTask } from '../../sim/campaign/pool-handlers.js';
import { runInPool } from '../../sim/campaign/pool.js';
import { CliError } from '../cli-error.js';
import { prepareOutput, writeOutput } from '../output.js';
import { progress } from '../progress.js';

interface GuaranteesFlags {
  seeds: number;
  out: string;
  jobs?: number;
  only?: string;
  /** Write one shrunk scenario per mechanism into this folder. */
  scenarios?: string;
  maxScenarios: number;
}

/** The first (configuration, seed) showing each mechanism on each set-up, in table order. */
export function firstShowings(rows: readonly GuaranteeRow[], limit: number): { configuration: string; seed: string; mechanism: Mechanism }[] {
  const seen = new Set<string>();
  const out: { configuration: string; seed: string; mechanism: Mechanism }[] = [];
  for (const r of rows) {
    for (const cell of Object.values(r.cells)) {
      for (const m of cell.mechanisms) {
        const k = scenarioKey(r.configuration.setup, m.key);
        if (seen.has(k) || out.length >= limit) continue;
        seen.add(k);
        out.push({ configuration: r.configuration.name, seed: m.firstSeed, mechanism: { kind: m.kind, cause: m.cause } });
      }
    }
  }
  return out;
}

export async function guaranteesCommand(flags: GuaranteesFlags): Promise<number> {
  if (configurationsMatching(flags.only).length === 0) throw new CliError(`no configuration matches ${JSON.stringify(flags.only)}`);
  // The measurement takes minutes: an output that cannot be written is refused before it.
  prepareOutput(flags.out);
  if (flags.scenarios) prepareOutput(join(flags.scenarios, 'scenario.json'));
  const bar = progress('guarantees');
  const { rows, runs, jobs, seconds } = await measureGuarantees({
    seeds: flags.seeds,
    ...(flags.only !== undefined ? { only: flags.only } : {}),
    ...(flags.jobs !== undefined ? { jobs: flags.jobs } : {}),
    onRun: (done, total) => bar.update(done, total),
  });
  bar.stop();

  const scenarios: MechanismScenario[] = [];
  if (flags.scenarios) {
    const wanted = firstShowings(rows, flags.maxScenarios);
    const shrinkBar = progress('shrinking mechanisms');
    let shrunk = 0;
    const files = (await runInPool(
      wanted.map((input) => ({ handler: 'shrinkMechanism', input })),
      runPoolTask,
      { jobs, onResult: () => shrinkBar.update(++shrunk, wanted.length) },
    )) as MechanismScenarioFile[];
    shrinkBar.stop();
    for (const f of files) {
      const file = join(flags.scenarios, `${f.name}.json`);
      writeOutput(file, `${JSON.stringify(f.scenario, null, 2)}\n`);
      scenarios.push({ setup: f.setup, key: mechanismKey(f.mechanism), file });
    }
  }
  const timing = `${runs} runs in ${seconds.toFixed(0)} s on ${jobs} thread(s): ${(runs / seconds).toFixed(1)} runs/s`;
  const command = `dynoq guarantees --seeds ${flags.seeds}${flags.scenarios ? ` --scenarios ${flags.scenarios}` : ''}`;
  const md = guaranteesMarkdown(rows, command, scenarios, adviceForMechanism, timing);
  writeOutput(flags.out, md);
  console.error(timing);
  console.log(`written to ${flags.out}`);
  return 0;
}
