import { availableParallelism } from 'node:os';
import { moduleWorker } from '../../runtime/module-worker.js';

/**
 * A worker's young generation, MB: a simulation allocates short-lived objects by the million
 * (promises, packets, replies), and a young generation larger than V8's default spends less of a run
 * collecting them. It changes no result.
 */
const YOUNG_GENERATION_MB = 96;

/** A task for a pool worker: which handler of the worker module, and its input. */
export interface PoolTask<T> {
  readonly handler: string;
  readonly input: T;
}

/** Tasks given one at a time (undefined: no more), for a budget that ends while tasks remain. */
type TaskSource<T> = () => PoolTask<T> | undefined;

/**
 * Runs tasks on worker threads, one per core by default (`jobs`), each task on whichever worker is
 * free; results come back in task order (for a source: the order tasks were taken). With `jobs` 1
 * the tasks run in this thread (no workers). Work is deterministic per task, so the results do not
 * depend on the number of jobs.
 */
export async function runInPool<T, R>(
  tasks: readonly PoolTask<T>[] | TaskSource<T>,
  run: (task: PoolTask<T>) => Promise<R>,
  options: { readonly jobs?: number; readonly onResult?: (result: R, index: number) => void } = {},
): Promise<R[]> {
  const take: TaskSource<T> = typeof tasks === 'function' ? tasks : (() => { let i = 0; return () => tasks[i++]; })();
  const limit = typeof tasks === 'function' ? Infinity : tasks.length;
  const jobs = Math.max(1, Math.min(options.jobs ?? availableParallelism(), limit));
  const results: R[] = [];
  if (jobs === 1) {
    for (let task = take(), i = 0; task !== undefined; task = take(), i++) {
      results[i] = await run(task);
      options.onResult?.(results[i]!, i);
    }
    return results;
  }
  const resourceLimits = { maxYoungGenerationSizeMb: YOUNG_GENERATION_MB };
  let next = 0;
  const worker = () =>
    new Promise<void>((resolve, reject) => {
      const w = moduleWorker('pool-worker', import.meta.url, { resourceLimits });
      const feed = () => {
        const task = take();
        if (task === undefined) {
          void w.terminate().then(() => resolve());
          return;
        }
        const index = next++;
        w.postMessage({ index, task });
      };
      w.on('message', (m: { index: number; result?: R; error?: string }) => {
        if (m.error !== undefined) {
          void w.terminate();
          reject(new Error(`task ${m.index} failed in a worker: ${m.error}`));
          return;
        }
        results[m.index] = m.result as R;
        options.onResult?.(results[m.index]!, m.index);
        feed();
      });
      w.on('error', reject);
      feed();
    });
  await Promise.all(Array.from({ length: jobs }, worker));
  return results;
}
