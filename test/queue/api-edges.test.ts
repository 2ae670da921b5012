import { describe, expect, it } from 'vitest';
import type { BaseQueue } from '../../src/queue/base-queue.js';
import { MAX_POP_COUNT } from '../../src/queue/base-queue.js';
import { createQueue } from '../../src/queue/create-queue.js';
import type { QueueMode } from '../../src/queue/dyno-queue.js';
import { DurabilityError, InvalidArgumentError, InvalidMessageError } from '../../src/queue/errors.js';
import { QueueKeys } from '../../src/queue/keys.js';
import type { QueueOptionsInput } from '../../src/queue/options.js';
import type { Store } from '../../src/store/store.js';
import { backendNames, useBackend } from '../support/backends.js';
import { FakeTime, settle } from '../support/fake-time.js';

// The edges of the queue API that the behaviour suite does not reach: argument boundaries, long-poll
// timing, abort and close while polling, corrupt stored entries, durable writes, shard-local predicates.

const MODES: QueueMode[] = ['legacy', 'atomic'];

/** Whether `p` has settled after the event loop has turned a few times (no virtual time passes). */
async function settledYet(p: Promise<unknown>): Promise<boolean> {
  let done = false;
  p.then(
    () => (done = true),
    () => (done = true),
  );
  await settle();
  return done;
}

/** Whether `p` settles within 5 s of real time while virtual time stands still. */
async function settlesSoon(p: Promise<unknown>): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<false>((r) => (timer = setTimeout(() => r(false), 5_000)));
  const done = await Promise.race([p.then(() => true, () => true), late]);
  clearTimeout(timer);
  return done;
}

/** Advances virtual time step by step, whenever something sleeps on it, until `p` settles. */
async function drive<T>(p: Promise<T>, time: FakeTime, stepMs: number): Promise<T> {
  let done = false;
  p.then(
    () => (done = true),
    () => (done = true),
  );
  for (let i = 0; i < 5_000 && !done; i++) {
    if (time.pendingTimers > 0) await time.advance(stepMs);
    else await new Promise((r) => setTimeout(r, 1));
  }
  return p;
}

/** Waits (in real time, no virtual time passing) until a poll is asleep on the fake timers. */
async function untilSleeping(time: FakeTime, timers = 1): Promise<void> {
  for (let i = 0; i < 5_000 && time.pendingTimers < timers; i++) await new Promise((r) => setTimeout(r, 1));
  expect(time.pendingTimers).toBeGreaterThanOrEqual(timers);
}

/** Counts the listeners added to and removed from a signal. */
function countListeners(signal: AbortSignal): { added: number; removed: number } {
  const counts = { added: 0, removed: 0 };
  const add = signal.addEventListener.bind(signal);
  const remove = signal.removeEventListener.bind(signal);
  signal.addEventListener = ((...a: Parameters<typeof add>) => (counts.added++, add(...a))) as typeof add;
  signal.removeEventListener = ((...a: Parameters<typeof remove>) => (counts.removed++, remove(...a))) as typeof remove;
  return counts;
}

/** The rejection of `p`, or a failure if it resolves. */
async function rejection(p: Promise<unknown>): Promise<unknown> {
  return p.then(
    () => {
      throw new Error('expected a rejection');
    },
    (err: unknown) => err,
  );
}

/** A store whose WAIT reports `confirmed` replicas and counts its calls. */
function withWait(store: Store, confirmed: () => number): { store: Store; waits: () => number; scripts: () => number } {
  let waits = 0;
  let scripts = 0;
  const proxy = new Proxy(store, {
    get(target, prop, receiver) {
      // without the one-connection script+WAIT, the queue runs the script and then calls wait()
      if (prop === 'runScriptThenWait') return undefined;
      if (prop === 'wait') {
        return () => {
          waits++;
          return Promise.resolve(confirmed());
        };
      }
      const value = Reflect.get(target, prop, receiver);
      if (prop === 'runScript' && typeof value === 'function') {
        return (...args: unknown[]) => {
          scripts++;
          return (value as (...a: unknown[]) => unknown).apply(target, args);
        };
      }
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
  return { store: proxy, waits: () => waits, scripts: () => scripts };
}

describe.each(backendNames())('queue API edges on %s', (backendName) => {
  const backend = useBackend(backendName);
  let counter = 0;
  const make = (mode: QueueMode, over: Partial<QueueOptionsInput> = {}, store?: Store, time = new FakeTime()) => {
    const queue = createQueue({
      name: `edge${++counter}`,
      mode,
      quorum: store ?? backend.store(),
      clock: time,
      timers: time,
      unackInterval: 0,
      unackTimeout: 1_000,
      pollInterval: 10,
      ...over,
    }) as BaseQueue;
    return { queue, time };
  };
  const msgs = (n: number, prefix = 'm') => Array.from({ length: n }, (_, i) => ({ id: `${prefix}${i}`, payload: `payload ${i}` }));

  describe.each(MODES)('%s mode', (mode) => {
    it('argument guards: count, wait, timeout and pattern, with what was wrong', async () => {
      const { queue } = make(mode);
      const argumentError = async (p: Promise<unknown>, argument: string, text: string) => {
        const err = await rejection(p);
        expect(err).toBeInstanceOf(InvalidArgumentError);
        expect((err as InvalidArgumentError).argument).toBe(argument);
        expect((err as Error).message).toBe(`invalid ${argument}: ${text}`);
      };
      await argumentError(queue.pop(MAX_POP_COUNT + 1), 'count', `must be an integer from 1 to ${MAX_POP_COUNT} (got ${MAX_POP_COUNT + 1})`);
      await argumentError(queue.peek(0), 'count', `must be an integer from 1 to ${MAX_POP_COUNT} (got 0)`);
      expect(await queue.pop(MAX_POP_COUNT)).toEqual([]);
      for (const [wait, shown] of [['5', '"5" (a string)'], [Number.NaN, 'NaN'], [Infinity, 'Infinity'], [-1, '-1']] as const) {
        await argumentError(queue.pop(1, { wait: wait as number }), 'wait', `must be a finite number of ms ≥ 0 (got ${shown})`);
      }
      const timeoutError = await rejection(queue.setTimeout('m', -1));
      expect(timeoutError).toBeInstanceOf(InvalidMessageError);
      expect((timeoutError as InvalidMessageError).field).toBe('timeout');
      for (const pattern of [5, '', 'x'.repeat(1_025)]) {
        await argumentError(queue.containsPredicate(pattern as string), 'pattern', 'must be a Lua pattern of 1 to 1024 characters');
      }
      expect(await queue.containsPredicate('x'.repeat(1_024))).toBe(false);
      await argumentError(queue.consume({ batch: 0 }).next(), 'batch', `must be an integer from 1 to ${MAX_POP_COUNT} (got 0)`);
      await queue.close();
    });

    it('a long poll asks only for what is still missing and ends exactly when the wait does', async () => {
      const { queue, time } = make(mode, { pollInterval: 10 });
      const other = make(mode, { name: queue.name }).queue;
      await other.push(msgs(1));
      const pending = queue.pop(2, { wait: 1_000 });
      await untilSleeping(time);
      await other.push(msgs(3, 'n'));
      await drive(pending, time, 10);
      // legacy re-reads the head of the queue into its prefetch list, so the id it already holds
      // comes back twice and takes the second slot (Dyno's prefetch does the same)
      expect(await pending).toHaveLength(mode === 'atomic' ? 2 : 1);

      // wait 15 with a 10 ms poll step: the second sleep is 5 ms, so the pop is over at +15
      const short = queue.pop(9, { wait: 15 });
      await untilSleeping(time);
      await time.advance(10);
      await untilSleeping(time);
      expect(await settledYet(short)).toBe(false);
      await time.advance(5);
      expect(await settlesSoon(short)).toBe(true);
      await queue.close();
      await other.close();
    });

    it('an aborted pop returns what it has and claims nothing more; a pre-aborted one claims nothing', async () => {
      const { queue, time } = make(mode);
      const other = make(mode, { name: queue.name }).queue;
      const controller = new AbortController();
      const signal = controller.signal;
      const listeners = countListeners(signal);

      const pending = queue.pop(1, { wait: 60_000, signal });
      await untilSleeping(time);
      await time.advance(5);
      await other.push(msgs(1));
      controller.abort();
      expect(await pending).toEqual([]);
      expect(await other.size()).toBe(1);
      expect(listeners.removed).toBe(listeners.added);

      expect(await queue.pop(1, { signal })).toEqual([]);
      expect(await other.size()).toBe(1);

      // a poll that ends by its wait also takes its listener off the signal
      const live = new AbortController().signal;
      const liveListeners = countListeners(live);
      const timedClock = new FakeTime();
      const timed = make(mode, {}, undefined, timedClock).queue;
      const waiting = timed.pop(1, { wait: 30, signal: live });
      await untilSleeping(timedClock);
      await timedClock.advance(40);
      expect(await waiting).toEqual([]);
      expect(liveListeners.added).toBeGreaterThan(0);
      expect(liveListeners.removed).toBe(liveListeners.added);
      await Promise.all([queue.close(), other.close(), timed.close()]);
    });

    it('close() wakes a sleeping pop, which claims nothing more; close is idempotent', async () => {
      const { queue, time } = make(mode);
      const other = make(mode, { name: queue.name }).queue;
      const pending = queue.pop(1, { wait: 60_000 });
      await untilSleeping(time);
      await time.advance(5);
      await other.push(msgs(1));
      expect(queue.isClosed).toBe(false);
      await queue.close();
      expect(queue.isClosed).toBe(true);
      expect(await settlesSoon(pending)).toBe(true);
      expect(await pending).toEqual([]);
      expect(await other.size()).toBe(1);
      await queue.close();
      expect(queue.isClosed).toBe(true);
      await other.close();
    });

    it('consume() without options takes one message per pop and long-polls until closed', async () => {
      const { queue, time } = make(mode);
      await queue.push(msgs(2));
      const it = queue.consume();
      expect((await it.next()).value).toMatchObject({ id: 'm0' });
      expect(await queue.size()).toBe(1);
      expect((await it.next()).value).toMatchObject({ id: 'm1' });
      const next = it.next();
      await untilSleeping(time);
      await time.advance(500);
      expect(await settledYet(next)).toBe(false);
      await untilSleeping(time);
      await queue.close();
      expect(await next).toEqual({ done: true, value: undefined });
    });

    it('a reaper run in progress when close() is called does not schedule another', async () => {
      let release: () => void = () => undefined;
      const gate = new Promise<void>((r) => (release = r));
      const real = backend.store();
      const slow = new Proxy(real, {
        get(target, prop, receiver) {
          const value = Reflect.get(target, prop, receiver);
          if (typeof value !== 'function') return value;
          return async (...args: unknown[]) => {
            if (prop === 'runScript' || prop === 'zrangeByScoreWithScores') await gate;
            return (value as (...a: unknown[]) => unknown).apply(target, args);
          };
        },
      });
      const { queue, time } = make(mode, { unackInterval: 50 }, slow);
      await time.advance(60);
      await settle();
      expect(time.pendingTimers).toBe(0);
      const closing = queue.close();
      expect(await settledYet(closing)).toBe(false);
      release();
      await closing;
      expect(time.pendingTimers).toBe(0);
    });

    it('a stored entry that is not a message is skipped by peek and pop, the rest still delivered', async () => {
      const store = backend.store();
      const { queue } = make(mode, {}, store);
      await queue.push(msgs(3));
      await store.hset(new QueueKeys('dynoq', queue.name, false).message, 'm1', '{corrupt');
      expect((await queue.peek(3)).map((m) => m.id)).toEqual(['m0', 'm2']);
      expect((await queue.pop(3)).map((m) => m.id)).toEqual(['m0', 'm2']);
    });

    it('popped messages carry their lease deadline: now + unackTimeout', async () => {
      const { queue, time } = make(mode, { unackTimeout: 700 });
      await queue.push([{ id: 'p', payload: 'x', priority: 50 }]);
      const [popped] = await queue.pop(1);
      expect(popped?.leaseDeadline).toBe(time.now() + 700);
      await queue.push(msgs(2));
      const bulk = await queue.bulkPop(2);
      expect(bulk.map((m) => [m.id, m.payload, m.leaseDeadline])).toEqual([
        ['m0', 'payload 0', time.now() + 700],
        ['m1', 'payload 1', time.now() + 700],
      ]);
      await time.advance(699);
      expect(await queue.processUnacks()).toBe(0);
      await time.advance(1);
      expect(await queue.processUnacks()).toBe(3);
      const [byId] = [await queue.popWithMsgId('m1')];
      expect(byId?.leaseDeadline).toBe(time.now() + 700);
      await queue.close();
    });

    it('predicates search every shard by default and only the local one when asked; a miss is null', async () => {
      const shards = { allShards: ['a', 'b'], currentShard: 'a' };
      const { queue: producer } = make(mode, { shards, sharding: { name: 'to-b', nextShard: () => 'b' } });
      const { queue } = make(mode, { name: producer.name, shards });
      await producer.push([{ id: 'far', payload: 'invoice 7' }]);
      expect(await queue.containsPredicate('invoice')).toBe(true);
      expect(await queue.containsPredicate('invoice', true)).toBe(false);
      expect(await queue.getMsgWithPredicate('invoice')).toMatchObject({ id: 'far' });
      expect(await queue.getMsgWithPredicate('invoice', true)).toBeNull();
      expect(await queue.getMsgWithPredicate('refund')).toBeNull();
      expect(await queue.popMsgWithPredicate('refund')).toBeNull();
      expect(await queue.popMsgWithPredicate('invoice', true)).toBeNull();
      // found in another shard, but popWithMsgId claims only from the local one
      expect(await queue.popMsgWithPredicate('invoice')).toBeNull();
      expect((await producer.shardSizes()).b).toEqual({ size: 1, uacked: 0 });
    });

    it('setTimeout finds a message in any shard and leaves an un-acked one alone', async () => {
      const shards = { allShards: ['a', 'b'], currentShard: 'a' };
      const { queue, time } = make(mode, { shards, sharding: { name: 'to-b', nextShard: () => 'b' } });
      await queue.push([{ id: 'x', payload: 'x', priority: 50 }]);
      expect(await queue.setTimeout('x', 100)).toBe(true);
      expect(await queue.setTimeout('missing', 100)).toBe(false);
      const consumer = make(mode, { name: queue.name, shards: { allShards: ['a', 'b'], currentShard: 'b' } }, undefined, time);
      expect(await consumer.queue.pop(1)).toEqual([]);
      await time.advance(100);
      expect((await consumer.queue.pop(1)).map((m) => m.id)).toEqual(['x']);
      expect(await queue.setTimeout('x', 0)).toBe(false);
    });
  });

  it('a sharding strategy that names an unknown shard is refused before anything is written', async () => {
    const { queue } = make('atomic', { sharding: { name: 'bad', nextShard: () => 'zz' } });
    const err = await rejection(queue.push(msgs(1)));
    expect(err).toBeInstanceOf(InvalidArgumentError);
    expect((err as Error).message).toBe('invalid sharding: strategy returned unknown shard zz');
    expect(await queue.get('m0')).toBeNull();
  });

  it('durable writes: push and a successful ack WAIT for the replicas; too few confirmations is an error', async () => {
    let confirmed = 1;
    const { store, waits, scripts } = withWait(backend.store(), () => confirmed);
    const { queue } = make('atomic', { durable: { replicas: 1, timeoutMs: 50 } }, store);
    expect(await queue.push([])).toEqual([]);
    expect([waits(), scripts()]).toEqual([0, 0]);
    expect(await queue.push(msgs(2))).toEqual(['m0', 'm1']);
    expect(waits()).toBe(1);
    const [a, b] = await queue.pop(2);
    expect(await queue.ack('nobody')).toBe(false);
    expect(waits()).toBe(1);
    expect(await queue.ack(a!.id, a!.token)).toBe(true);
    expect(waits()).toBe(2);
    expect(await queue.ackAndPop('nobody', undefined, 1)).toEqual({ acked: false, messages: [] });
    expect(waits()).toBe(2);
    confirmed = 0;
    const ackErr = await rejection(queue.ackAndPop(b!.id, b!.token, 1));
    expect(ackErr).toBeInstanceOf(DurabilityError);
    expect(ackErr).toMatchObject({ operation: 'ack', ids: [b!.id], wanted: 1, confirmed: 0 });
    const pushErr = await rejection(queue.push(msgs(1, 'late')));
    expect(pushErr).toMatchObject({ operation: 'push', ids: ['late0'], wanted: 1, confirmed: 0 });
    const [next] = await queue.pop(1);
    expect(await rejection(queue.ack(next!.id, next!.token))).toMatchObject({ operation: 'ack', ids: [next!.id] });
    confirmed = 2;
    expect(await queue.push(msgs(1, 'ok'))).toEqual(['ok0']);
  });

  it('server time: due times and leases come from the server clock, not the client one', async () => {
    const { queue, time } = make('atomic', { serverTime: true, unackTimeout: 60_000 });
    expect(Math.abs(time.now() - Date.now())).toBeGreaterThan(1e9);
    await queue.push(msgs(1));
    const [m] = await queue.pop(1);
    expect(m).toBeDefined();
    expect(Math.abs(m!.leaseDeadline - (Date.now() + 60_000))).toBeLessThan(60_000);
    expect(await queue.ack(m!.id, m!.token)).toBe(true);
  });

  it('an atomic lease extended without a token is extended', async () => {
    const { queue, time } = make('atomic', { unackTimeout: 100 });
    await queue.push(msgs(1));
    await queue.pop(1);
    expect(await queue.setUnackTimeout('m0', 500)).toBe(true);
    await time.advance(200);
    expect(await queue.processUnacks()).toBe(0);
  });

  it('findStaleMessages names queued ids whose payload is gone, in every shard', async () => {
    for (const mode of MODES) {
      const store = backend.store();
      const shards = { allShards: ['a', 'b'], currentShard: 'a' };
      const { queue, time } = make(mode, { shards, sharding: 'round-robin' }, store);
      await queue.push(msgs(4));
      const hash = new QueueKeys('dynoq', queue.name, false).message;
      await store.hdel(hash, ['m0', 'm1']);
      await time.advance(1);
      expect((await queue.findStaleMessages()).sort()).toEqual(['m0', 'm1']);
      await queue.clear();
      await queue.close();
    }
  });

  it('legacy: the reaper drops an expired un-ack whose payload is gone instead of re-queueing it', async () => {
    const store = backend.store();
    const { queue, time } = make('legacy', { unackTimeout: 100 }, store);
    await queue.push(msgs(2));
    expect(await queue.pop(2)).toHaveLength(2);
    await store.hdel(new QueueKeys('dynoq', queue.name, false).message, ['m0']);
    await time.advance(100);
    expect(await queue.processUnacks()).toBe(1);
    expect((await queue.shardSizes()).a).toEqual({ size: 1, uacked: 0 });
    expect((await queue.peek(2)).map((m) => m.id)).toEqual(['m1']);
  });

  it('legacy popWithMsgId touches nothing when the id is not in the local queue or has no payload', async () => {
    const store = backend.store();
    const shards = { allShards: ['a', 'b'], currentShard: 'a' };
    const { queue } = make('legacy', { shards, sharding: { name: 'to-b', nextShard: () => 'b' } }, store);
    await queue.push(msgs(1));
    expect(await queue.popWithMsgId('m0')).toBeNull();
    expect(await queue.shardSizes()).toEqual({ a: { size: 0, uacked: 0 }, b: { size: 1, uacked: 0 } });
    const local = make('legacy', {}, store).queue;
    await local.push(msgs(1, 'bare'));
    await store.hdel(new QueueKeys('dynoq', local.name, false).message, ['bare0']);
    expect(await local.popWithMsgId('bare0')).toBeNull();
    expect((await local.shardSizes()).a).toEqual({ size: 1, uacked: 0 });
  });

  it('legacy bulkPop claims a message due this very millisecond, priority fraction included', async () => {
    const { queue } = make('legacy');
    await queue.push([{ id: 'now', payload: 'x', priority: 99 }]);
    expect((await queue.bulkPop(1)).map((m) => m.id)).toEqual(['now']);
  });
});
