import type { BaseQueue } from '../../src/queue/base-queue.js';
import { createQueue } from '../../src/queue/create-queue.js';
import type { QueueMode } from '../../src/queue/dyno-queue.js';
import type { Store } from '../../src/store/store.js';
import type { FakeTime } from '../../src/testing/manual-time.js';

export { FakeTime, settle } from '../../src/testing/manual-time.js';

/** A queue on fake time with no reaper timer (the test runs the re-queue itself), its lease and poll step given. */
export function fakeTimeQueue(time: FakeTime, q: { name: string; mode: QueueMode; quorum: Store; unackTimeout: number; pollInterval: number; defaults?: object }): BaseQueue {
  return createQueue({ name: q.name, mode: q.mode, quorum: q.quorum, clock: time, timers: time, unackInterval: 0, unackTimeout: q.unackTimeout, pollInterval: q.pollInterval, ...q.defaults }) as BaseQueue;
}
