import type { MethodOf } from '../../model/method-history.js';
import type { BaseQueue } from '../../queue/base-queue.js';
import type { DynoQueue } from '../../queue/dyno-queue.js';

/** The public methods of the queue (DynoQueue), by name. */
export type QueueMethod = MethodOf<DynoQueue>;

/**
 * The queue, counting each public method the workload calls on it. The method runs on the queue
 * itself, so that its own inner calls (ackMany calling ack) are not counted as the workload's.
 */
export function countingQueue(queue: BaseQueue, calls: Map<string, number>): BaseQueue {
  return new Proxy(queue, {
    get(target, prop, receiver) {
      const value: unknown = Reflect.get(target, prop, receiver);
      if (typeof value !== 'function' || typeof prop !== 'string') return value;
      return (...args: unknown[]) => {
        calls.set(prop, (calls.get(prop) ?? 0) + 1);
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
}
