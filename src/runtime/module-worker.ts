import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { Worker, type WorkerOptions } from 'node:worker_threads';

/**
 * A worker thread running the module `name` (without extension) beside `from` (a module's
 * import.meta.url): bundled, every chunk sits in dist/ beside the worker's entry; from the TypeScript
 * sources (tsx, vitest) the worker first registers tsx's loader, then loads the .ts module.
 */
export function moduleWorker(name: string, from: string, options: WorkerOptions = {}): Worker {
  const url = new URL(`./${name}.${from.endsWith('.ts') ? 'ts' : 'js'}`, from);
  if (!url.pathname.endsWith('.ts')) return new Worker(url, options);
  const tsx = pathToFileURL(createRequire(from).resolve('tsx/esm/api')).href.replace(/\.cjs$/, '.mjs');
  return new Worker(`import(${JSON.stringify(tsx)}).then((m) => { m.register(); return import(${JSON.stringify(url.href)}); })`, { ...options, eval: true, execArgv: [] });
}
