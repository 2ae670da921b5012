import { availableParallelism } from 'node:os';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';

/** A task for a pool worker: which handler of the worker module, and its input. */
export interface PoolTask<T> {
  readonly handler: string;
  readonly input: T;
}

/**
 * Runs tasks on worker threads, one per core by default (`jobs`), each task on whichever worker is
 * free; results come back in task order. With `jobs` 1 the tasks run in this thread (no workers).
 * Work is deterministic per task, so the results do not depend on the number of jobs.
 */
export async function runInPool<T, R>(
  tasks: readonly PoolTask<T>[],
  run: (task: PoolTask<T>) => Promise<R>,
  options: { readonly jobs?: number; readonly onResult?: (result: R, index: number) => void } = {},
): Promise<R[]> {
  const jobs = Math.max(1, Math.min(options.jobs ?? availableParallelism(), tasks.length));
  const results: R[] = new Array(tasks.length);
  if (jobs === 1) {
    for (let i = 0; i < tasks.length; i++) {
      results[i] = await run(tasks[i]!);
      options.onResult?.(results[i]!, i);
    }
    return results;
  }
  const workerUrl = new URL(`./pool-worker.${import.meta.url.endsWith('.ts') ? 'ts' : 'js'}`, import.meta.url);
  // From the TypeScript sources (tsx, vitest) a worker first registers tsx's loader, then loads them.
  const fromSources = workerUrl.pathname.endsWith('.ts');
  const boot = fromSources
    ? `import(${JSON.stringify(pathToFileURL(createRequire(import.meta.url).resolve('tsx/esm/api')).href.replace(/\.cjs$/, '.mjs'))}).then((m) => { m.register(); return import(${JSON.stringify(workerUrl.href)}); })`
    : null;
  let next = 0;
  const worker = () =>
    new Promise<void>((resolve, reject) => {
      const w = boot ? new Worker(boot, { eval: true, execArgv: [] }) : new Worker(workerUrl);
      const feed = () => {
        if (next >= tasks.length) {
          void w.terminate().then(() => resolve());
          return;
        }
        const index = next++;
        w.postMessage({ index, task: tasks[index] });
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
