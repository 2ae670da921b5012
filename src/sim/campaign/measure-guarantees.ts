import { availableParallelism } from 'node:os';
import { TABLE_CONFIGURATIONS, type NamedConfiguration } from '../run/configurations.js';
import { foldRow, seedsFor, type GuaranteeRow, type RunSummary } from './guarantees.js';
import { runPoolTask } from './pool-handlers.js';
import { runInPool, type PoolTask } from './pool.js';

export interface GuaranteeOptions {
  /** Runs per configuration (seeds g-0 … g-N-1: the same N always gives the same table). */
  readonly seeds: number;
  /** Only the configurations whose name contains this text (default: every row). */
  readonly only?: string;
  /** Worker threads (default: every core). */
  readonly jobs?: number;
  /** Called after each run with runs done and runs in all. */
  readonly onRun?: (done: number, total: number) => void;
}

export interface GuaranteeMeasurement {
  readonly rows: GuaranteeRow[];
  readonly runs: number;
  readonly jobs: number;
  readonly seconds: number;
}

/** The table's configurations a filter selects (empty when none matches). */
export function configurationsMatching(only: string | undefined): NamedConfiguration[] {
  return only ? TABLE_CONFIGURATIONS.filter((c) => c.name.includes(only)) : [...TABLE_CONFIGURATIONS];
}

/** Measures every selected configuration over N seeds on worker threads and folds each into a table row. */
export async function measureGuarantees(options: GuaranteeOptions): Promise<GuaranteeMeasurement> {
  const configurations = configurationsMatching(options.only);
  const jobs = options.jobs ?? availableParallelism();
  const seeds = seedsFor(options.seeds);
  const tasks: PoolTask<{ configuration: string; seed: string }>[] = configurations.flatMap((c) =>
    seeds.map((seed) => ({ handler: 'summarizeRun', input: { configuration: c.name, seed } })),
  );
  let done = 0;
  const started = performance.now();
  const summaries = (await runInPool(tasks, runPoolTask, { jobs, onResult: () => options.onRun?.(++done, tasks.length) })) as RunSummary[];
  const seconds = (performance.now() - started) / 1_000;
  const rows = configurations.map((c) => foldRow(c, summaries.filter((s) => s.configuration === c.name)));
  return { rows, runs: tasks.length, jobs, seconds };
}
