import { AtomicQueue } from './atomic-queue.js';
import type { BaseQueue } from './base-queue.js';
import { LegacyQueue } from './legacy-queue.js';
import type { QueueOptionsInput } from './options.js';
import { parseQueueOptions } from './options.js';

/** Builds a queue in the mode its options name (atomic by default). Options are validated first. */
export function createQueue(input: QueueOptionsInput): BaseQueue {
  const options = parseQueueOptions(input);
  return options.mode === 'legacy' ? new LegacyQueue(options) : new AtomicQueue(options);
}
