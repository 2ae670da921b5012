import { systemClock } from '../../runtime/system-time.js';
import { exploreSeed, type ExploreTask } from './explore.js';
import { summarizeRun } from './guarantees.js';
import { shrinkMechanism } from './mechanism-scenarios.js';
import type { PoolTask } from './pool.js';

/**
 * What a pool worker can be asked to do. The process edge: the only real clock a simulated path sees
 * is handed here to exploreSeed, for explore --time's shrinking budget (read between runs).
 */
export const POOL_HANDLERS = { summarizeRun, shrinkMechanism, exploreSeed: (task: ExploreTask) => exploreSeed(task, systemClock) } as const;

export function runPoolTask(task: PoolTask<unknown>): Promise<unknown> {
  return (POOL_HANDLERS[task.handler as keyof typeof POOL_HANDLERS] as (input: unknown) => Promise<unknown>)(task.input);
}
