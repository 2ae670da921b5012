import { describe, expect, it } from 'vitest';
import type { BaseQueue } from '../../src/queue/base-queue.js';
import type { QueueMode } from '../../src/queue/dyno-queue.js';
import { backendNames, useBackend } from '../support/backends.js';
import { FakeTime, fakeTimeQueue, settle } from '../support/fake-time.js';

// A long-poll that leased a message and kept waiting for more, longer than the lease, handed the
// message to its caller after the reaper had re-queued it and another consumer had taken it: two
// holders at once (the simulator's connection-reset racer found it: a consume() batch waiting 2.2 s
// on a 1 s lease). What a long-poll returns must still be its caller's.

const MODES: QueueMode[] = ['atomic', 'legacy'];
const LEASE = 1_000;
const POLL = 10;

describe.each(backendNames())('a long-poll returns what it leased while the lease is still its caller\'s on %s', (backendName) => {
  const backend = useBackend(backendName);
  let counter = 0;
  const make = (mode: QueueMode, time: FakeTime, name: string) =>
    fakeTimeQueue(time, { name, mode, quorum: backend.store(), unackTimeout: LEASE, pollInterval: POLL, defaults: backend.queueDefaults });

  /** One poll step of virtual time, once the long-poll sleeps on the fake timers (or has returned): a slow store never sees the clock run ahead. */
  const step = async (time: FakeTime, returned: () => boolean) => {
    for (let i = 0; i < 10_000 && time.pendingTimers === 0 && !returned(); i++) await settle(1);
    await time.advance(POLL);
  };

  it.each(MODES)('%s: pop(2, { wait: 3 × the lease }) with one message due returns it by half the lease, before anyone else could take it', async (mode) => {
    const time = new FakeTime();
    const name = `lease-poll${++counter}`;
    const waiting = make(mode, time, name);
    const other = make(mode, time, name);
    await other.push([{ id: 'm0', payload: 'p0' }]);
    const start = time.now();
    let returnedAt = Number.NaN;
    let ackedOnReturn: boolean | undefined;
    const popping = waiting.pop(2, { wait: 3 * LEASE }).then(async (got) => {
      returnedAt = time.now();
      ackedOnReturn = got.length === 1 ? await waiting.ack(got[0]!.id, got[0]!.token) : undefined;
      return got.map((m) => m.id);
    });
    // Past the lease: the other consumer's reaper re-queues an expired lease and it pops.
    for (let t = 0; t <= LEASE + 100; t += POLL) await step(time, () => !Number.isNaN(returnedAt));
    await other.processUnacks();
    const taken = (await other.pop(1)).map((m) => m.id);
    for (let t = 0; t < 3 * LEASE && Number.isNaN(returnedAt); t += POLL) await step(time, () => !Number.isNaN(returnedAt));
    expect(await popping).toEqual(['m0']);
    expect(returnedAt - start).toBeLessThanOrEqual(LEASE / 2);
    expect(ackedOnReturn, 'the caller still held the lease it was given').toBe(true);
    expect(taken, 'taken by another consumer while the long-poll still waited with it').toEqual([]);
    await waiting.close();
    await other.close();
  });

  // (legacy mode's pop returns once its prefetched ids are claimed, as Dyno's does: atomic only)
  it.each(['atomic'] as const)('%s: a wait shorter than half the lease is kept in full', async (mode) => {
    const time = new FakeTime();
    const name = `lease-poll${++counter}`;
    const waiting = make(mode, time, name);
    await waiting.push([{ id: 'm0', payload: 'p0' }]);
    const start = time.now();
    let returnedAt = Number.NaN;
    const popping = waiting.pop(2, { wait: LEASE / 4 }).then((got) => {
      returnedAt = time.now();
      return got.map((m) => m.id);
    });
    for (let t = 0; t < LEASE && Number.isNaN(returnedAt); t += POLL) await step(time, () => !Number.isNaN(returnedAt));
    expect(await popping).toEqual(['m0']);
    expect(returnedAt - start).toBeGreaterThanOrEqual(LEASE / 4);
    await waiting.close();
  });
});

// A reply that comes back after a whole lease (a paused client, or a later attempt of the same call
// that hung until its request timed out) carries messages whose lease may be over: the reaper may
// have re-queued them and another consumer may hold them. The simulator's connection-reset racer
// found it: a consume() batch returned, 5 s after its first attempt leased it, a message another
// consumer then held (primary-replica/atomic/none/full, seed g195).
describe('a long-poll never hands over a message whose lease may have run out', () => {
  const message = (id: string) => ({ id, payload: 'p', priority: 0, timeout: 0, token: `t-${id}`, leaseDeadline: 0 });
  const backend = useBackend('ioredis-mock');
  let counter = 0;
  // The attempts are given: the store is never reached.
  const queueOn = (time: FakeTime) =>
    fakeTimeQueue(time, { name: `lease-gone${++counter}`, mode: 'atomic', quorum: backend.store(), unackTimeout: LEASE, pollInterval: POLL });
  type LongPoll = (count: number, wait: number, signal: AbortSignal | undefined, attempt: (n: number) => Promise<ReturnType<typeof message>[]>) => Promise<ReturnType<typeof message>[] & { error?: unknown; keptBack?: readonly string[] }>;
  const longPollOf = (q: BaseQueue) => (q as unknown as { longPoll: LongPoll }).longPoll.bind(q);
  /** Runs the long-poll, moving virtual time a poll step at a time while it sleeps between attempts. */
  const driven = async <T>(time: FakeTime, running: Promise<T>): Promise<T> => {
    let done = false;
    const settled = running.finally(() => {
      done = true;
    });
    settled.catch(() => undefined);
    for (let i = 0; i < 1_000 && !done; i++) await time.advance(POLL);
    return settled;
  };

  it('a later attempt that fails after a whole lease: what the first leased is kept back, the error comes back with its id', async () => {
    const time = new FakeTime();
    const q = queueOn(time);
    let calls = 0;
    const attempt = async () => {
      if (calls++ === 0) return [message('m0')];
      await time.advance(LEASE + 50);
      throw new Error('connection reset');
    };
    const got = await driven(time, longPollOf(q)(2, 3 * LEASE, undefined, attempt));
    expect([...got]).toEqual([]);
    expect(String(got.error)).toContain('connection reset');
    expect(got.keptBack, 'the ids it leased to nobody').toEqual(['m0']);
    await q.close();
  });

  it('the same failure within the lease: the message comes back with the error attached', async () => {
    const time = new FakeTime();
    const q = queueOn(time);
    let calls = 0;
    const attempt = async () => {
      if (calls++ === 0) return [message('m0')];
      await time.advance(LEASE / 4);
      throw new Error('connection reset');
    };
    const got = await driven(time, longPollOf(q)(2, LEASE / 2, undefined, attempt));
    expect(got.map((m) => m.id)).toEqual(['m0']);
    expect(String(got.error)).toContain('connection reset');
    await q.close();
  });

  it('one attempt whose reply arrives after a whole lease (a paused client): nothing handed over', async () => {
    const time = new FakeTime();
    const q = queueOn(time);
    const attempt = async () => {
      await time.advance(LEASE);
      return [message('m0')];
    };
    const got = await longPollOf(q)(1, 0, undefined, attempt);
    expect([...got]).toEqual([]);
    expect(got.keptBack, 'the caller is told which it leased to nobody').toEqual(['m0']);
    await q.close();
  });

  it('consume() tells onLeasesKeptBack the ids a pop kept back, and goes on', async () => {
    const time = new FakeTime();
    const q = queueOn(time);
    const kept: (readonly string[])[] = [];
    let pops = 0;
    const stop = new AbortController();
    // Its pops: first one that kept two back, then one that returns a message.
    (q as unknown as { pop: () => Promise<unknown> }).pop = async () =>
      pops++ === 0 ? Object.assign([], { keptBack: ['m2', 'm3'] }) : [message('m1')];
    const yielded: string[] = [];
    for await (const m of q.consume({ onLeasesKeptBack: (n) => kept.push(n), signal: stop.signal })) {
      yielded.push(m.id);
      stop.abort();
    }
    expect(kept).toEqual([['m2', 'm3']]);
    expect(yielded).toEqual(['m1']);
    await expect(async () => {
      for await (const _ of q.consume({ onLeasesKeptBack: 'no' as never })) break;
    }).rejects.toThrow(/onLeasesKeptBack/);
    await q.close();
  });
});
