import type { QueueMethod } from './call-counter.js';

/**
 * Which driver calls each public queue method in the `full` profile, or why none does. The compiler
 * demands an entry for every method of DynoQueue; test/sim/workload-coverage.test.ts runs the profile
 * and checks that every method with a driver was called.
 */
export const METHOD_DRIVERS: Readonly<Record<QueueMethod, { readonly driver: string } | { readonly excluded: string }>> = {
  push: { driver: 'producers (produce.ts)' },
  pop: { driver: 'consumer loops pop-ack, ack-and-pop, ack-many-and-pop (consume-loops.ts); racers: a long-poll aborted after it leased (race.ts)' },
  bulkPop: { driver: 'consumer loop bulk-pop' },
  popWithMsgId: { driver: 'operator: pop by id; racers: a pop by id racing a reschedule' },
  peek: { driver: 'operator: reads' },
  ack: { driver: 'consumer loops, operator after a pop by id or predicate (hold.ts)' },
  ackMany: { driver: 'consumer loop bulk-pop' },
  release: { driver: 'holders (hold.ts)' },
  getUnackTime: { driver: 'operator: reads' },
  ackAndPop: { driver: 'consumer loop ack-and-pop' },
  ackManyAndPop: { driver: 'consumer loop ack-many-and-pop' },
  setUnackTimeout: { driver: 'holders: slow work extends its lease' },
  setTimeout: { driver: 'operator (queued messages), holders (held messages), racers (racing a pop by id)' },
  remove: { driver: 'operator: remove' },
  atomicRemove: { driver: 'operator: remove' },
  ensure: { driver: 'operator: ensure of a new or an existing id; racers: one new id from two zones at once' },
  containsPredicate: { driver: 'operator: reads' },
  getMsgWithPredicate: { driver: 'operator: reads' },
  popMsgWithPredicate: { driver: 'operator: pop by predicate' },
  get: { driver: 'operator: reads' },
  localGet: { driver: 'operator: reads' },
  getAllMessages: { driver: 'operator: reads' },
  size: { driver: 'operator: reads' },
  shardSizes: { driver: 'operator: reads' },
  clear: { excluded: 'deletes every message of the queue: no delivery property survives it by design, so a run that cleared would judge nothing' },
  processUnacks: { driver: 'operator: a manual re-queue pass (every consumer also runs the reaper)' },
  atomicProcessUnacks: { driver: 'operator: a manual re-queue pass' },
  findStaleMessages: { driver: 'operator: reads' },
  consume: { driver: 'consumer loop consume, entered once as the README does (a loop that ends is a consumer that stopped)' },
  close: { driver: 'operator: closes its queue at the end of the safety phase' },
};

export const DRIVEN_METHODS = (Object.keys(METHOD_DRIVERS) as QueueMethod[]).filter((m) => 'driver' in METHOD_DRIVERS[m]);
