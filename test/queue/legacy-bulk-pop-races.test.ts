import { describe, expect, it } from 'vitest';
import type { Store } from '../../src/store/store.js';
import { backendNames, useBackend } from '../support/backends.js';
import { FakeTime, fakeTimeQueue, settle } from '../support/fake-time.js';

// Legacy mode keeps Dyno's bulk pop as written, and these are the two steps by which the legacy
// Dynomite rows of docs/FIDELITY.md lose messages on both sides, the simulator and the real twin
// (their rates differ by how long the second step's window lasts: a few quorum round trips).
// 1. A bulk pop whose shard holds fewer ids than it asks for re-peeks every poll and appends the
//    same id again; the script moves the first copy to un-ack and, at the second, finds it gone
//    from the queue and returns nothing: the message is leased to nobody until the reaper.
// 2. The reaper re-queues in two writes (ZADD to the queue, then ZREM from un-ack), and the script
//    takes an id out of the queue even when its ZADD NX into un-ack found an entry: a bulk pop
//    between the two leaves the message in neither set, never delivered again.

const LEASE = 1_000;
const POLL = 10;

describe.each(backendNames())('legacy bulk pop: leased to nobody, and lost between the reaper\'s two writes, on %s', (backendName) => {
  const backend = useBackend(backendName);
  let counter = 0;
  const make = (time: FakeTime, name: string, store: Store = backend.store()) =>
    fakeTimeQueue(time, { name, mode: 'legacy', quorum: store, unackTimeout: LEASE, pollInterval: POLL, defaults: backend.queueDefaults });

  /** Runs a long-poll to its end on virtual time, one poll step at a time once it sleeps. */
  const longPoll = async <T>(time: FakeTime, call: Promise<T>): Promise<T> => {
    let done = false;
    const result = call.finally(() => (done = true));
    for (let i = 0; i < 100 && !done; i++) {
      for (let j = 0; j < 10_000 && time.pendingTimers === 0 && !done; j++) await settle(1);
      if (!done) await time.advance(POLL);
    }
    return result;
  };

  it('bulkPop(2) with one message due re-peeks it, and the script leases it to nobody: nothing returned, the message in un-ack', async () => {
    const time = new FakeTime();
    const queue = make(time, `bulk-nobody${++counter}`);
    await queue.push([{ id: 'x', payload: 'p' }]);
    expect(await longPoll(time, queue.bulkPop(2, { wait: 5 * POLL }))).toEqual([]);
    expect(await queue.size()).toBe(0);
    expect(await queue.getUnackTime('x')).not.toBeNull();
    // the reaper brings it back a lease later, and a plain pop then delivers it
    await time.advance(LEASE + 1);
    expect(await queue.processUnacks()).toBe(1);
    expect((await queue.pop(1)).map((m) => m.id)).toEqual(['x']);
    await queue.close();
  }, 60_000);

  it('a bulk pop between the reaper\'s ZADD to the queue and its ZREM from un-ack leaves the message in neither set, for good', async () => {
    const time = new FakeTime();
    const name = `bulk-orphan${++counter}`;
    // The reaper's store holds its ZREM from un-ack until released.
    let reached!: () => void;
    const atZrem = new Promise<void>((r) => (reached = r));
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const gated = backend.store();
    const reaperStore = new Proxy(gated, {
      get(target, prop, receiver) {
        const value: unknown = Reflect.get(target, prop, receiver);
        if (prop !== 'zrem' || typeof value !== 'function') return typeof value === 'function' ? value.bind(target) : value;
        return async (key: string, members: readonly string[]) => {
          if (key.includes('UNACK')) {
            reached();
            await gate;
          }
          return (value as Store['zrem']).call(target, key, members);
        };
      },
    });
    const consumer = make(time, name);
    const reaper = make(time, name, reaperStore);
    await consumer.push([{ id: 'x', payload: 'p' }]);
    expect((await consumer.pop(1)).map((m) => m.id)).toEqual(['x']);
    await time.advance(LEASE + 1);
    // the lease expired: the reaper re-queues x (ZADD done) and waits before its ZREM
    const reaping = reaper.processUnacks();
    await atZrem;
    expect(await consumer.size()).toBe(1);
    // a bulk pop now: its script's ZADD NX finds the old un-ack entry, it takes x from the queue anyway
    expect(await longPoll(time, consumer.bulkPop(2, { wait: 5 * POLL }))).toEqual([]);
    release();
    await reaping;
    expect(await consumer.size()).toBe(0);
    expect(await consumer.getUnackTime('x')).toBeNull();
    expect(await consumer.get('x')).not.toBeNull();
    // nothing brings it back: no lease to expire, nothing queued
    await time.advance(10 * LEASE);
    expect(await consumer.processUnacks()).toBe(0);
    expect(await longPoll(time, consumer.pop(1, { wait: 5 * POLL }))).toEqual([]);
    await consumer.close();
    await reaper.close();
  }, 60_000);
});
