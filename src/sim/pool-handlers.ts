import { exploreSeed } from './explore.js';
import { summarizeRun } from './guarantees.js';
import { shrinkMechanism } from './mechanism-scenarios.js';
import type { PoolTask } from './pool.js';

/** What a pool worker can be asked to do. */
export const POOL_HANDLERS = { summarizeRun, shrinkMechanism, exploreSeed } as const;

export function runPoolTask(task: PoolTask<unknown>): Promise<unknown> {
  return (POOL_HANDLERS[task.handler as keyof typeof POOL_HANDLERS] as (input: unknown) => Promise<unknown>)(task.input);
}
