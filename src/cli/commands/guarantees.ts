import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { adviceForMechanism } from '../../sim/campaign/advice.js';
import { renderGuaranteesHtml } from '../../report/guarantees-html.js';
import { scenarioKey, type GuaranteeRow, type MechanismScenario } from '../../sim/campaign/guarantees.js';
import { guaranteesData, guaranteesJson, GuaranteesDataError, parseGuaranteesData, withAdvice, type GuaranteesData } from '../../sim/campaign/guarantees-data.js';
import { guaranteesPage } from '../../sim/campaign/guarantees-page.js';
import { configurationsMatching, measureGuarantees } from '../../sim/campaign/measure-guarantees.js';
import type { MechanismScenarioFile } from '../../sim/campaign/mechanism-scenarios.js';
import { mechanismKey, type Mechanism } from '../../sim/campaign/mechanisms.js';
import { runPoolTask } from '../../sim/campaign/pool-handlers.js';
import { runInPool } from '../../sim/campaign/pool.js';
import { CliError } from '../cli-error.js';
import { prepareOutput, writeOutput } from '../output.js';
import { progress } from '../progress.js';

export interface GuaranteesFlags {
  seeds: number;
  out: string;
  /** The data (default: GUARANTEES.json beside --out). */
  json?: string;
  /** The HTML page (default: guarantees.html beside --out). */
  html?: string;
  /** Render the pages from this data file instead of measuring. */
  renderFrom?: string;
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

/** Where the three outputs go: --json and --html, or beside the Markdown. */
function outputs(flags: GuaranteesFlags): { md: string; json: string; html: string } {
  return { md: flags.out, json: flags.json ?? join(dirname(flags.out), 'GUARANTEES.json'), html: flags.html ?? join(dirname(flags.out), 'guarantees.html') };
}

/** The Markdown and HTML pages of a data file, without running anything. */
function renderFrom(file: string, flags: GuaranteesFlags): number {
  if (!existsSync(file)) throw new CliError(`--render-from ${file}: no such file`);
  let data: GuaranteesData;
  try {
    data = parseGuaranteesData(readFileSync(file, 'utf8'), file);
  } catch (err) {
    if (err instanceof GuaranteesDataError) throw new CliError(err.message);
    throw err;
  }
  const out = outputs(flags);
  // The advice is the code's, not the measurement's: derived again from each published mechanism.
  const advised = withAdvice(data, adviceForMechanism);
  const adviceMoved = JSON.stringify([advised.advice, advised.adviceOf]) !== JSON.stringify([data.advice, data.adviceOf]);
  prepareOutput(out.md);
  prepareOutput(out.html);
  writeOutput(out.md, guaranteesPage(advised));
  writeOutput(out.html, renderGuaranteesHtml(advised));
  if (adviceMoved) {
    prepareOutput(out.json);
    writeOutput(out.json, guaranteesJson(advised));
  }
  console.log(`rendered ${file} (${data.rows.length} configurations) into ${out.md} and ${out.html}${adviceMoved ? `; its advice, changed in the code since, written into ${out.json}` : ''}`);
  return 0;
}

export async function guaranteesCommand(flags: GuaranteesFlags): Promise<number> {
  if (flags.renderFrom !== undefined) return renderFrom(flags.renderFrom, flags);
  if (configurationsMatching(flags.only).length === 0) throw new CliError(`no configuration matches ${JSON.stringify(flags.only)}`);
  // The measurement takes minutes: an output that cannot be written is refused before it.
  const out = outputs(flags);
  for (const file of Object.values(out)) prepareOutput(file);
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
  const data = guaranteesData({ rows, command, timing, seeds: flags.seeds, scenarios, advise: adviceForMechanism });
  writeOutput(out.json, guaranteesJson(data));
  writeOutput(out.md, guaranteesPage(data));
  writeOutput(out.html, renderGuaranteesHtml(data));
  console.error(timing);
  console.log(`written to ${out.md}, ${out.json} and ${out.html}`);
  return 0;
}
