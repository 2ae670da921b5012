import { availableParallelism } from 'node:os';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';

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
  // Bundled, every chunk sits in dist/ beside pool-worker.js; from the sources it sits beside this file.
  const workerUrl = new URL(`./pool-worker.${import.meta.url.endsWith('.ts') ? 'ts' : 'js'}`, import.meta.url);
  // From the TypeScript sources (tsx, vitest) a worker first registers tsx's loader, then loads them.
  const fromSources = workerUrl.pathname.endsWith('.ts');
  const boot = fromSources
    ? `import(${JSON.stringify(pathToFileURL(createRequire(import.meta.url).resolve('tsx/esm/api')).href.replace(/\.cjs$/, '.mjs'))}).then((m) => { m.register(); return import(${JSON.stringify(workerUrl.href)}); })`
    : null;
  const resourceLimits = { maxYoungGenerationSizeMb: YOUNG_GENERATION_MB };
  let next = 0;
  const worker = () =>
    new Promise<void>((resolve, reject) => {
      const w = boot ? new Worker(boot, { eval: true, execArgv: [], resourceLimits }) : new Worker(workerUrl, { resourceLimits });
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
