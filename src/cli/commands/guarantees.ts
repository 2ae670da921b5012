import { mkdirSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { dirname, join } from 'node:path';
import { VIOLATION_KINDS, type ViolationKind } from '../../model/properties.js';
import { adviceFor } from '../../sim/advice.js';
import { CONFIGURATIONS } from '../../sim/configurations.js';
import { foldRow, guaranteesMarkdown, seedsFor, type GuaranteeRow, type MechanismScenario, type RunSummary } from '../../sim/guarantees.js';
import type { MechanismScenarioFile } from '../../sim/mechanism-scenarios.js';
import { runPoolTask } from '../../sim/pool-handlers.js';
import { runInPool, type PoolTask } from '../../sim/pool.js';
import { CliError } from '../cli-error.js';
import { progress } from '../progress.js';

export interface GuaranteesFlags {
  seeds: number;
  out: string;
  jobs?: number;
  only?: string;
  /** Write one shrunk scenario per mechanism into this folder. */
  scenarios?: string;
  maxScenarios: number;
}

function advise(row: GuaranteeRow, key: string): string | null {
  const [kind, cause] = key.split(' ← ') as [ViolationKind, string];
  const property = VIOLATION_KINDS[kind]?.breaks;
  return property ? adviceFor(property, cause) : null;
}

/** The first (configuration, seed) showing each mechanism, in table order. */
function firstShowings(rows: readonly GuaranteeRow[], limit: number): { configuration: string; seed: string; key: string }[] {
  const seen = new Set<string>();
  const out: { configuration: string; seed: string; key: string }[] = [];
  for (const r of rows) {
    for (const cell of Object.values(r.cells)) {
      for (const m of cell.mechanisms) {
        if (seen.has(m.key) || out.length >= limit) continue;
        seen.add(m.key);
        out.push({ configuration: r.configuration.name, seed: m.firstSeed, key: m.key });
      }
    }
  }
  return out;
}

export async function guaranteesCommand(flags: GuaranteesFlags): Promise<number> {
  const configurations = flags.only ? CONFIGURATIONS.filter((c) => c.name.includes(flags.only!)) : CONFIGURATIONS;
  if (configurations.length === 0) throw new CliError(`no configuration matches ${JSON.stringify(flags.only)}`);
  const jobs = flags.jobs ?? availableParallelism();
  const seeds = seedsFor(flags.seeds);
  const tasks: PoolTask<{ configuration: string; seed: string }>[] = configurations.flatMap((c) =>
    seeds.map((seed) => ({ handler: 'summarizeRun', input: { configuration: c.name, seed } })),
  );
  const bar = progress('guarantees');
  let done = 0;
  const started = performance.now();
  const summaries = (await runInPool(tasks, runPoolTask, { jobs, onResult: () => bar.update(++done, tasks.length) })) as RunSummary[];
  bar.stop();
  const seconds = (performance.now() - started) / 1_000;
  const rows = configurations.map((c) => foldRow(c, summaries.filter((s) => s.configuration === c.name)));

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
    mkdirSync(flags.scenarios, { recursive: true });
    for (const f of files) {
      const file = join(flags.scenarios, `${f.name}.json`);
      writeFileSync(file, `${JSON.stringify(f.scenario, null, 2)}\n`);
      scenarios.push({ key: f.key, file });
    }
  }
  const timing = `${tasks.length} runs in ${seconds.toFixed(0)} s on ${jobs} thread(s): ${(tasks.length / seconds).toFixed(1)} runs/s`;
  const command = `dynoq guarantees --seeds ${flags.seeds}${flags.scenarios ? ` --scenarios ${flags.scenarios}` : ''}`;
  const md = guaranteesMarkdown(rows, command, scenarios, advise, timing);
  mkdirSync(dirname(flags.out), { recursive: true });
  writeFileSync(flags.out, md);
  console.error(timing);
  console.log(`written to ${flags.out}`);
  return 0;
}
