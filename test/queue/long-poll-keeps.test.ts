import { describe, expect, it } from 'vitest';
import type { BaseQueue } from '../../src/queue/base-queue.js';
import { createQueue } from '../../src/queue/create-queue.js';
import type { QueueMode } from '../../src/queue/dyno-queue.js';
import type { PoppedBatch } from '../../src/queue/popped-batch.js';
import type { Store } from '../../src/store/store.js';
import { backendNames, useBackend } from '../support/backends.js';
import { failingOn } from '../support/failing-store.js';
import { FakeTime, settle } from '../support/fake-time.js';

// Issue 31, item 4: a long-poll keeps what it leased. When a later attempt of a waiting pop (or of
// consume()) meets a store error on a connection that has died, the release of what earlier
// attempts leased fails on the same connection: the messages must go to the waiting caller, not
// stay leased to nobody for a whole lease.

const MODES: QueueMode[] = ['atomic', 'legacy'];
const CLOSED = 'Connection is closed.';
const LEASE = 60_000;

/** A connection that dies for good at the `dyingCall`-th call `counts` selects, as a closed ioredis client. */
const dyingOn = (store: Store, counts: (prop: string, args: unknown[]) => boolean, dyingCall: number) =>
  failingOn(store, counts, dyingCall, { message: CLOSED, forGood: true });

describe.each(backendNames())('a long-poll keeps what it leased on %s', (backendName) => {
  const backend = useBackend(backendName);
  let counter = 0;
  const make = (mode: QueueMode, store: Store, time: FakeTime, name = `keeps${++counter}`) =>
    createQueue({
      name,
      mode,
      quorum: store,
      clock: time,
      timers: time,
      unackInterval: 0,
      unackTimeout: LEASE,
      pollInterval: 10,
      ...backend.queueDefaults,
    }) as BaseQueue;

  /**
   * A queue whose connection dies after its first lease: atomic at the second pop script (the
   * long-poll's next attempt), legacy at the second un-ack ZADD of Dyno's per-id claim.
   */
  const dyingQueue = async (mode: QueueMode) => {
    const time = new FakeTime();
    const base = backend.store();
    const store =
      mode === 'atomic'
        ? dyingOn(base, (prop, args) => prop === 'runScript' && (args[0] as { name: string }).name === 'atomicPop', 2)
        : dyingOn(base, (prop) => prop === 'zadd', 2);
    const queue = make(mode, store, time);
    const healthy = make(mode, base, time, queue.name);
    // atomic leases one message on its first attempt, then waits for the second; legacy prefetches both
    await healthy.push([
      { id: 'm0', payload: 'p0' },
      ...(mode === 'legacy' ? [{ id: 'm1', payload: 'p1' }] : []),
    ]);
    return { queue, healthy, time };
  };

  /** Lets the first attempt lease and go to sleep on the fake timers, then lets the next one run. */
  const toNextAttempt = async (mode: QueueMode, time: FakeTime) => {
    if (mode !== 'atomic') return;
    for (let i = 0; i < 1_000 && time.pendingTimers === 0; i++) await settle(1);
    expect(time.pendingTimers).toBe(1);
    await time.advance(10);
  };

  describe.each(MODES)('%s mode', (mode) => {
    it('pop(2, { wait }) returns the message its first attempt leased, with the error of the attempt that failed', async () => {
      const { queue, healthy, time } = await dyingQueue(mode);
      const popping = queue.pop(2, { wait: 1_000 }).then(
        (got) => ({ got, thrown: undefined as unknown }),
        (err: unknown) => ({ got: undefined as PoppedBatch | undefined, thrown: err }),
      );
      await toNextAttempt(mode, time);
      const { got, thrown } = await popping;
      expect(String(thrown ?? 'nothing thrown')).toBe('nothing thrown');
      expect(got!.map((m) => m.id)).toEqual(['m0']);
      expect(String(got!.error)).toContain(CLOSED);
      // the caller holds the lease it was given: ack it on a live connection
      expect(await healthy.ack('m0', got![0]!.token)).toBe(true);
      await queue.close();
      await healthy.close();
    });

    it('consume() yields what the failing long-poll had leased, reports the error and goes on until closed', async () => {
      const { queue, healthy, time } = await dyingQueue(mode);
      const seen: string[] = [];
      const errors: { error: string; retryInMs: number }[] = [];
      const consuming = (async () => {
        for await (const m of queue.consume({ batch: 2, wait: 1_000, onError: (e, retryInMs) => errors.push({ error: String(e), retryInMs }) })) {
          seen.push(m.id);
          expect(await healthy.ack(m.id, m.token)).toBe(true);
        }
      })().then(
        () => 'ended without error',
        (err: unknown) => String(err),
      );
      await toNextAttempt(mode, time);
      // the connection stays dead: each retry fails again, after a pause that doubles
      for (let failures = 1; failures <= 2; failures++) {
        for (let i = 0; i < 5_000 && (errors.length < failures || time.pendingTimers === 0); i++) await settle(1);
        if (failures === 1) await time.advance(100);
      }
      expect(errors.map((e) => e.retryInMs)).toEqual([100, 200]);
      expect(errors.every((e) => e.error.includes(CLOSED))).toBe(true);
      await queue.close();
      expect(await consuming).toBe('ended without error');
      expect(seen).toEqual(['m0']);
      expect((await healthy.shardSizes()).a!.uacked).toBe(0);
      await healthy.close();
    });

    it('a long-poll whose attempts leased nothing still throws the error', async () => {
      const time = new FakeTime();
      const base = backend.store();
      const queue = make(mode, dyingOn(base, () => true, 1), time);
      await expect(queue.pop(2, { wait: 1_000 })).rejects.toThrow(CLOSED);
      await queue.close();
    });
  });
});
