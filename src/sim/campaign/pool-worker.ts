import { parentPort } from 'node:worker_threads';
import { POOL_HANDLERS } from './pool-handlers.js';
import type { PoolTask } from './pool.js';

/** A pool worker: runs the named handler on each task it is sent and posts the result back. */
parentPort!.on('message', async ({ index, task }: { index: number; task: PoolTask<unknown> }) => {
  try {
    const handler = POOL_HANDLERS[task.handler as keyof typeof POOL_HANDLERS] as (input: unknown) => Promise<unknown>;
    parentPort!.postMessage({ index, result: await handler(task.input) });
  } catch (err) {
    parentPort!.postMessage({ index, error: err instanceof Error ? (err.stack ?? err.message) : String(err) });
  }
});
