import { describe, expect, it } from 'vitest';
import type { BaseQueue } from '../src/queue/base-queue.js';
import { createQueue } from '../src/queue/create-queue.js';
import { InvalidArgumentError, InvalidMessageError, QueueClosedError } from '../src/queue/errors.js';
import { QueueKeys } from '../src/queue/keys.js';
import type { QueueMode } from '../src/queue/dyno-queue.js';
import type { QueueOptionsInput } from '../src/queue/options.js';
import type { Store } from '../src/store/store.js';
import type { AtomicQueue } from '../src/queue/atomic-queue.js';
import { LEASING_CALLS, staleMidPopDiffers } from './support/atomic-pop-edges.js';
import { backendNames, useBackend } from './support/backends.js';
import { FakeTime } from './support/fake-time.js';

const MODES: QueueMode[] = ['legacy', 'atomic'];

describe.each(backendNames({ cluster: true }))('queue on %s', (backendName) => {
  const backend = useBackend(backendName);
  let counter = 0;
  /** A queue on this backend with a hand-driven clock; `mode` undefined means the default. */
  const makeQueue = (mode: QueueMode | undefined, over: Partial<QueueOptionsInput> = {}, store?: Store) => {
    const time = new FakeTime();
    const queue = createQueue({
      name: `q${++counter}`,
      ...(mode ? { mode } : {}),
      quorum: store ?? backend.store(),
      clock: time,
      timers: time,
      unackInterval: 0,
      unackTimeout: 1_000,
      ...backend.queueDefaults,
      ...over,
    });
    return { queue, time };
  };

  describe.each(MODES)('%s mode', (mode) => {
    const make = (over: Partial<QueueOptionsInput> = {}, store?: Store) => makeQueue(mode, over, store);
    const msgs = (n: number, prefix = 'm') =>
      Array.from({ length: n }, (_, i) => ({ id: `${prefix}${i}`, payload: `payload ${i}` }));

    it('push, peek, pop and ack; a second ack is refused', async () => {
      const { queue } = make();
      expect(await queue.push(msgs(5))).toEqual(['m0', 'm1', 'm2', 'm3', 'm4']);
      expect(await queue.size()).toBe(5);
      const peeked = await queue.peek(5);
      expect(peeked.map((m) => m.id).sort()).toEqual(['m0', 'm1', 'm2', 'm3', 'm4']);
      expect(await queue.size()).toBe(5);
      const popped = await queue.pop(5);
      expect(popped.map((m) => m.id).sort()).toEqual(['m0', 'm1', 'm2', 'm3', 'm4']);
      expect(popped[0]!.payload).toMatch(/^payload \d$/);
      expect(await queue.size()).toBe(0);
      expect((await queue.shardSizes()).a).toEqual({ size: 0, uacked: 5 });
      for (const m of popped) expect(await queue.ack(m.id, m.token)).toBe(true);
      expect(await queue.ack('m0')).toBe(false);
      expect((await queue.shardSizes()).a).toEqual({ size: 0, uacked: 0 });
      expect(await queue.get('m0')).toBeNull();
      await queue.close();
    });

    it('pops nothing from an empty queue and keeps a popped message from a second pop', async () => {
      const { queue } = make();
      expect(await queue.pop(3)).toEqual([]);
      await queue.push(msgs(1));
      expect(await queue.pop(1)).toHaveLength(1);
      expect(await queue.pop(1)).toEqual([]);
    });

    it('remove takes a message out, queued or popped', async () => {
      const { queue } = make();
      await queue.push(msgs(2));
      expect(await queue.remove('m0')).toBe(true);
      expect(await queue.remove('m0')).toBe(false);
      expect(await queue.get('m0')).toBeNull();
      expect(await queue.size()).toBe(1);
      const [only] = await queue.pop(5);
      expect(only!.id).toBe('m1');
    });

    it('get and localGet return the stored message', async () => {
      const { queue } = make();
      await queue.push([{ id: 'g1', payload: 'hello', timeout: 0, priority: 7 }]);
      const got = await queue.get('g1');
      expect(got).toMatchObject({ id: 'g1', payload: 'hello', priority: 7, timeout: 0, shard: 'a' });
      expect(await queue.localGet('g1')).toEqual(got);
      expect(await queue.get('nope')).toBeNull();
    });

    it('a delayed message is not delivered before its delay passes', async () => {
      const { queue, time } = make();
      await queue.push([{ id: 'd1', payload: 'later', timeout: 5_000 }]);
      expect(await queue.pop(1)).toEqual([]);
      await time.advance(4_000);
      expect(await queue.pop(1)).toEqual([]);
      await time.advance(1_001);
      expect((await queue.pop(1)).map((m) => m.id)).toEqual(['d1']);
    });

    it('setTimeout reschedules a queued message', async () => {
      const { queue, time } = make();
      await queue.push([{ id: 't1', payload: 'x' }]);
      expect(await queue.setTimeout('t1', 10_000)).toBe(true);
      expect(await queue.pop(1)).toEqual([]);
      await time.advance(10_001);
      expect((await queue.pop(1)).map((m) => m.id)).toEqual(['t1']);
      expect(await queue.setTimeout('missing', 10)).toBe(false);
    });

    it('processUnacks re-queues a message whose lease expired, and only then', async () => {
      const { queue, time } = make();
      await queue.push(msgs(1));
      const [first] = await queue.pop(1);
      expect(first).toBeDefined();
      await time.advance(500);
      expect(await queue.processUnacks()).toBe(0);
      await time.advance(600);
      expect(await queue.processUnacks()).toBe(1);
      await time.advance(1);
      const again = await queue.pop(1);
      expect(again.map((m) => m.id)).toEqual(['m0']);
      expect(await queue.ack('m0', again[0]!.token)).toBe(true);
    });

    it('atomicProcessUnacks re-queues expired leases too', async () => {
      const { queue, time } = make();
      await queue.push(msgs(2));
      await queue.pop(2);
      await time.advance(1_001);
      expect(await queue.atomicProcessUnacks()).toBe(2);
      await time.advance(1);
      expect(await queue.pop(2)).toHaveLength(2);
    });

    it('setUnackTimeout extends a lease past the reaper', async () => {
      const { queue, time } = make();
      await queue.push(msgs(1));
      const [m] = await queue.pop(1);
      expect(await queue.setUnackTimeout('m0', 10_000, m!.token)).toBe(true);
      await time.advance(5_000);
      expect(await queue.processUnacks()).toBe(0);
      await time.advance(5_001);
      expect(await queue.processUnacks()).toBe(1);
      expect(await queue.setUnackTimeout('missing', 10)).toBe(false);
    });

    it('clear empties every shard and the payloads', async () => {
      const { queue } = make({ shards: { allShards: ['a', 'b'], currentShard: 'a' } });
      await queue.push(msgs(6));
      await queue.pop(1);
      await queue.clear();
      expect(await queue.size()).toBe(0);
      expect(await queue.get('m1')).toBeNull();
      expect(await queue.shardSizes()).toEqual({ a: { size: 0, uacked: 0 }, b: { size: 0, uacked: 0 } });
    });

    it('the same message pushed three times: round-robin vs hash sharding', async () => {
      const shards = { allShards: ['a', 'b', 'c'], currentShard: 'a' };
      const rr = make({ shards, sharding: 'round-robin' }).queue;
      const hash = make({ shards, sharding: 'hash' }).queue;
      for (let i = 0; i < 3; i++) {
        await rr.push([{ id: 'same', payload: 'p' }]);
        await hash.push([{ id: 'same', payload: 'p' }]);
      }
      // Legacy (Dyno v1) leaves one copy per shard it landed in; atomic push is an upsert.
      expect(await rr.size()).toBe(mode === 'legacy' ? 3 : 1);
      expect(await hash.size()).toBe(1);
    });

    it('popWithMsgId, ensure and findStaleMessages', async () => {
      const { queue } = make();
      await queue.push(msgs(3));
      const got = await queue.popWithMsgId('m2');
      expect(got?.id).toBe('m2');
      expect(await queue.popWithMsgId('m2')).toBeNull();
      expect(await queue.ensure({ id: 'm0', payload: 'again' })).toBe(false);
      expect(await queue.ensure({ id: 'm2', payload: 'again' })).toBe(false);
      expect(await queue.ensure({ id: 'new', payload: 'n' })).toBe(true);
      expect(await queue.findStaleMessages()).toEqual([]);
    });

    it('ackAndPop acks one message and leases the next ones', async () => {
      const { queue } = make();
      await queue.push(msgs(3));
      const [first] = await queue.pop(1);
      const step = await queue.ackAndPop(first!.id, first!.token, 2);
      expect(step.acked).toBe(true);
      expect(step.messages).toHaveLength(2);
      expect(await queue.get(first!.id)).toBeNull();
      const last = await queue.ackAndPop(first!.id, first!.token, 1);
      expect(last).toEqual({ acked: false, messages: [] });
    });

    it('ackManyAndPop acks a batch in order and leases the next batch; ackMany acks the rest', async () => {
      const { queue } = make();
      await queue.push(msgs(12));
      const batch = await queue.pop(5);
      expect(batch).toHaveLength(5);
      // an id that does not exist and a repeat of the first are refused, in place
      const items = [...batch, { id: 'nobody' }, batch[0]!];
      const step = await queue.ackManyAndPop(items, 5);
      expect(step.acked).toEqual([true, true, true, true, true, false, false]);
      // five more, none of the acked ones (legacy's order is not push order)
      const next = step.messages.map((m) => m.id);
      expect(new Set(next).size).toBe(5);
      expect(next.filter((id) => batch.some((m) => m.id === id) || !/^m\d+$/.test(id))).toEqual([]);
      for (const m of batch) expect(await queue.get(m.id)).toBeNull();
      expect(await queue.ackMany(step.messages)).toEqual([true, true, true, true, true]);
      const last = await queue.ackManyAndPop([], 5);
      expect(last.acked).toEqual([]);
      expect(last.messages).toHaveLength(2);
      expect(await queue.size()).toBe(0);
      await expect(queue.ackManyAndPop(last.messages, 0)).rejects.toBeInstanceOf(InvalidArgumentError);
      await expect(queue.ackManyAndPop('m1' as never, 1)).rejects.toBeInstanceOf(InvalidArgumentError);
      // the refused calls acked nothing
      expect(await queue.ackMany(last.messages)).toEqual([true, true]);
    });

    it('bulkPop claims several due messages in one call', async () => {
      const { queue, time } = make();
      await queue.push(msgs(4));
      await time.advance(1);
      const popped = await queue.bulkPop(3);
      expect(popped).toHaveLength(3);
      expect(await queue.size()).toBe(1);
    });

    it('finds, gets and pops messages by Lua payload pattern', async () => {
      const { queue } = make();
      await queue.push([
        { id: 'p1', payload: 'order 123 shipped' },
        { id: 'p2', payload: 'invoice 77 paid' },
      ]);
      expect(await queue.containsPredicate('invoice %d+')).toBe(true);
      expect(await queue.containsPredicate('^refund')).toBe(false);
      expect((await queue.getMsgWithPredicate('order %d+', true))?.id).toBe('p1');
      expect((await queue.popMsgWithPredicate('invoice'))?.id).toBe('p2');
      expect(await queue.size()).toBe(1);
    });

    it('long-polls until a message arrives or the wait ends, and honours an AbortSignal', async () => {
      const { queue, time } = make({ pollInterval: 10 });
      const pending = queue.pop(1, { wait: 1_000 });
      await time.advance(100);
      await queue.push(msgs(1));
      await time.advance(20);
      expect((await pending).map((m) => m.id)).toEqual(['m0']);

      const empty = queue.pop(1, { wait: 50 });
      await time.advance(100);
      expect(await empty).toEqual([]);

      const controller = new AbortController();
      const aborted = queue.pop(1, { wait: 60_000, signal: controller.signal });
      await time.advance(10);
      controller.abort();
      expect(await aborted).toEqual([]);
    });

    it('consume() yields messages as an async iterator until aborted', async () => {
      const { queue } = make();
      await queue.push(msgs(3));
      const controller = new AbortController();
      const seen: string[] = [];
      for await (const m of queue.consume({ batch: 2, wait: 0, signal: controller.signal })) {
        seen.push(m.id);
        await queue.ack(m.id, m.token);
        if (seen.length === 3) controller.abort();
      }
      expect(seen.sort()).toEqual(['m0', 'm1', 'm2']);
    });

    it('the reaper runs on the injected timers, survives store errors and stops on close', async () => {
      const time = new FakeTime();
      const real = backend.store();
      let failures = 0;
      const errors: unknown[] = [];
      const flaky: Store = new Proxy(real, {
        get(target, prop, receiver) {
          const value = Reflect.get(target, prop, receiver);
          if (typeof value !== 'function') return value;
          return (...args: unknown[]) => {
            if ((prop === 'runScript' || prop === 'zrangeByScoreWithScores') && failures > 0) {
              failures--;
              return Promise.reject(new Error('connection reset'));
            }
            return (value as (...a: unknown[]) => unknown).apply(target, args);
          };
        },
      });
      const producer = make({}, real).queue as BaseQueue;
      const queue = createQueue({
        name: producer.name,
        mode,
        quorum: flaky,
        clock: time,
        timers: time,
        unackTimeout: 100,
        unackInterval: 50,
        onReaperError: (e) => errors.push(e),
        ...backend.queueDefaults,
      });
      const unackKey = new QueueKeys('dynoq', queue.name, backend.queueDefaults.hashTag).unack('a');
      await producer.push(msgs(1));
      expect(await queue.pop(1)).toHaveLength(1);
      expect(time.pendingTimers).toBe(1);
      failures = 2;
      for (let i = 0; i < 10 && (await real.zcard(unackKey)) > 0; i++) {
        await time.advance(60);
        await new Promise((r) => setTimeout(r, 20));
      }
      expect(errors.length).toBeGreaterThan(0);
      expect(await real.zcard(unackKey)).toBe(0);
      await queue.close();
      expect(time.pendingTimers).toBe(0);
      await expect(queue.pop(1)).rejects.toBeInstanceOf(QueueClosedError);
      await producer.close();
    });

    it('rejects every bad input with a typed error and writes nothing', async () => {
      const { queue } = make({ maxPayloadBytes: 1_024 });
      const bad: [unknown, string][] = [
        [{ id: '', payload: 'x' }, 'id'],
        [{ id: 'x'.repeat(257), payload: 'x' }, 'id'],
        [{ id: 'has space', payload: 'x' }, 'id'],
        [{ id: 'brace{tag}', payload: 'x' }, 'id'],
        [{ id: 'ok', payload: 'x', timeout: -1 }, 'timeout'],
        [{ id: 'ok', payload: 'x', timeout: Number.NaN }, 'timeout'],
        [{ id: 'ok', payload: 'x', timeout: Number.POSITIVE_INFINITY }, 'timeout'],
        [{ id: 'ok', payload: 'x', timeout: 1.5 }, 'timeout'],
        [{ id: 'ok', payload: 'x', priority: -1 }, 'priority'],
        [{ id: 'ok', payload: 'x', priority: 100 }, 'priority'],
        [{ id: 'ok', payload: 'x', priority: 2.5 }, 'priority'],
        [{ id: 'ok', payload: 'y'.repeat(1_025) }, 'payload'],
        [{ id: 'ok', payload: 42 }, 'payload'],
        [{ id: 'ok', payload: 'lone \ud800 surrogate' }, 'payload'],
        [{ id: 'ok', payload: '\udc00 trailing half' }, 'payload'],
        [null, 'message'],
      ];
      for (const [message, field] of bad) {
        const attempt = queue.push([{ id: 'good', payload: 'fine' }, message as never]);
        await expect(attempt).rejects.toBeInstanceOf(InvalidMessageError);
        await expect(attempt).rejects.toMatchObject({ field });
      }
      expect(await queue.size()).toBe(0);
      expect(await queue.get('good')).toBeNull();
      await expect(queue.push(null as never)).rejects.toMatchObject({ name: 'InvalidArgumentError', argument: 'messages' });
      expect(await queue.size()).toBe(0);
      // Dyno's answers: pop(0) is an empty list; a lookup of an id that could never be pushed finds nothing
      expect(await queue.pop(0)).toEqual([]);
      expect(await queue.ack('bad id')).toBe(false);
      expect(await queue.get('bad id')).toBeNull();
      expect(await queue.remove('')).toBe(false);
      expect(await queue.popWithMsgId('x'.repeat(300))).toBeNull();
      await expect(queue.ack(42 as never)).rejects.toBeInstanceOf(InvalidMessageError);
      await expect(queue.pop(-1)).rejects.toBeInstanceOf(InvalidArgumentError);
      await expect(queue.pop(1.5)).rejects.toBeInstanceOf(InvalidArgumentError);
      await expect(queue.pop(1, { wait: -1 })).rejects.toBeInstanceOf(InvalidArgumentError);
      await expect(queue.setUnackTimeout('m', -5)).rejects.toBeInstanceOf(InvalidMessageError);
      await expect(queue.setTimeout('m', Number.NaN)).rejects.toBeInstanceOf(InvalidMessageError);
      await expect(queue.containsPredicate('')).rejects.toBeInstanceOf(InvalidArgumentError);
      for (const malformed of ['%', '[a', '(a', 'a)', '%b(', '%fx', '%1', '(a)%2']) {
        await expect(queue.containsPredicate(malformed)).rejects.toMatchObject({ name: 'InvalidArgumentError', argument: 'pattern' });
      }
      const store = backend.store();
      const options = { quorum: store, clock: new FakeTime(), timers: new FakeTime(), mode, ...backend.queueDefaults };
      expect(() => createQueue({ ...options, name: 'has.dot' })).toThrow(InvalidArgumentError);
      expect(() => createQueue({ ...options, name: '' })).toThrow(/queue name/);
      expect(() => createQueue({ ...options, name: 'x', unackTimeout: -1 })).toThrow(/unackTimeout/);
      expect(() => createQueue({ ...options, name: 'x', shards: { allShards: ['a'], currentShard: 'b' } })).toThrow(
        /currentShard/,
      );
      expect(() => createQueue({ ...options, name: 'x', bogus: 1 } as never)).toThrow(InvalidArgumentError);
    });

    it(
      '3 publishers and 2 consumers move 10,000 messages: none lost, none delivered twice while held',
      async () => {
        const time = new FakeTime();
        const shards = ['a', 'b'];
        const name = `load${++counter}`;
        const first = backend.store();
        const base = { name, mode, clock: time, timers: time, unackInterval: 0, unackTimeout: 600_000, ...backend.queueDefaults } as const;
        const publishers = [0, 1, 2].map((i) =>
          createQueue({ ...base, quorum: i === 0 ? first : backend.secondStore(), shards: { allShards: shards, currentShard: 'a' } }),
        );
        const consumers = shards.map((s) =>
          createQueue({ ...base, quorum: backend.secondStore(), shards: { allShards: shards, currentShard: s } }),
        );
        // ioredis-mock re-sorts a whole sorted set on every range read, so 10,000 messages take minutes there.
        const total = backendName === "redis" ? 10_000 : 2_000;
        const publish = publishers.map(async (q, p) => {
          for (let i = p; i < total; i += 3 * 50) {
            const batch = [];
            for (let j = i; j < Math.min(total, i + 3 * 50); j += 3) batch.push({ id: `id${j}`, payload: `p${j}` });
            await q.push(batch);
          }
        });
        const delivered = new Map<string, number>();
        const held = new Set<string>();
        let doubles = 0;
        let done = false;
        const consume = consumers.map(async (q) => {
          let idle = 0;
          while (!done || idle < 3) {
            const got = await q.pop(50);
            idle = got.length === 0 ? idle + 1 : 0;
            for (const m of got) {
              if (held.has(m.id)) doubles++;
              held.add(m.id);
              delivered.set(m.id, (delivered.get(m.id) ?? 0) + 1);
            }
            for (const m of got) {
              expect(await q.ack(m.id, m.token)).toBe(true);
              held.delete(m.id);
            }
            if (got.length === 0) await new Promise((r) => setImmediate(r));
          }
        });
        await Promise.all(publish);
        done = true;
        await Promise.all(consume);
        expect(doubles).toBe(0);
        expect(delivered.size).toBe(total);
        expect([...delivered.values()].every((n) => n === 1)).toBe(true);
        expect(await consumers[0]!.size()).toBe(0);
        for (const q of [...publishers, ...consumers]) await q.close();
      },
      120_000,
    );
  });

  describe('atomic-mode promises', () => {
    const make = (over: Partial<QueueOptionsInput> = {}) => makeQueue(undefined, over);

    it('is the default mode', () => {
      expect(make().queue.mode).toBe('atomic');
    });

    it('a stale lease token can neither ack nor extend; the current holder can', async () => {
      const { queue, time } = make();
      await queue.push([{ id: 'x', payload: 'p' }]);
      const [first] = await queue.pop(1);
      await time.advance(1_001);
      expect(await queue.processUnacks()).toBe(1);
      const [second] = await queue.pop(1);
      expect(second!.token).not.toBe(first!.token);
      expect(await queue.ack('x', first!.token)).toBe(false);
      expect(await queue.setUnackTimeout('x', 60_000, first!.token)).toBe(false);
      expect(await queue.setUnackTimeout('x', 60_000, second!.token)).toBe(true);
      expect(await queue.ack('x', second!.token)).toBe(true);
    });

    it('ackManyAndPop is one script call per batch and checks each lease token', async () => {
      const store = backend.store();
      let scriptCalls = 0;
      const counting = new Proxy(store, {
        get(target, prop) {
          const v = Reflect.get(target, prop) as unknown;
          if (prop === 'runScript') return (...args: Parameters<Store['runScript']>) => (scriptCalls++, target.runScript(...args));
          return typeof v === 'function' ? v.bind(target) : v;
        },
      });
      const { queue, time } = makeQueue(undefined, {}, counting);
      await queue.push(Array.from({ length: 30 }, (_, i) => ({ id: `m${i}`, payload: `p${i}` })));
      const batch = await queue.pop(10);
      // the first lease of m0 expires and m0 is leased again: its old token must not ack it
      await time.advance(1_001);
      expect(await queue.processUnacks()).toBe(10);
      const again = await queue.pop(1);
      expect(again[0]!.id).toBe(batch[0]!.id);
      scriptCalls = 0;
      const step = await queue.ackManyAndPop(batch, 10);
      expect(scriptCalls).toBe(1);
      expect(step.acked).toEqual(Array(10).fill(false));
      expect(step.messages.map((m) => m.id)).toEqual([...batch.slice(1).map((m) => m.id), 'm10']);
      expect(await queue.ackMany([...again, ...step.messages])).toEqual(Array(11).fill(true));
      expect(scriptCalls).toBe(2);
      // 1,200 acks: three calls of at most 500
      const ids = Array.from({ length: 1_200 }, (_, i) => ({ id: `x${i}` }));
      expect((await queue.ackMany(ids)).every((a) => a === false)).toBe(true);
      expect(scriptCalls).toBe(5);
    });

    it('a late ack after re-queue is refused and the message is delivered again', async () => {
      const { queue, time } = make();
      await queue.push([{ id: 'late', payload: 'p' }]);
      const [m] = await queue.pop(1);
      await time.advance(1_001);
      await queue.processUnacks();
      expect(await queue.ack('late', m!.token)).toBe(false);
      expect((await queue.pop(1)).map((x) => x.id)).toEqual(['late']);
    });

    it('orders all due messages by priority, then push order, whatever their due times', async () => {
      const { queue, time } = make();
      await queue.push([
        { id: 'low-early', payload: '', priority: 50 },
        { id: 'low-later', payload: '', priority: 50 },
      ]);
      await time.advance(1_000);
      await queue.push([{ id: 'urgent', payload: '', priority: 0 }]);
      await queue.push([{ id: 'mid-delayed', payload: '', priority: 10, timeout: 10 }]);
      await time.advance(20);
      expect((await queue.peek(4)).map((m) => m.id)).toEqual(['urgent', 'mid-delayed', 'low-early', 'low-later']);
      expect((await queue.pop(4)).map((m) => m.id)).toEqual(['urgent', 'mid-delayed', 'low-early', 'low-later']);
    });

    it('a re-queued message keeps its priority', async () => {
      const { queue, time } = make();
      await queue.push([{ id: 'vip', payload: '', priority: 1 }]);
      await queue.pop(1);
      await queue.push([{ id: 'bulk1', payload: '', priority: 90 }, { id: 'bulk2', payload: '', priority: 90 }]);
      await time.advance(1_001);
      expect(await queue.processUnacks()).toBe(1);
      expect((await queue.pop(1)).map((m) => m.id)).toEqual(['vip']);
    });

    it.each(LEASING_CALLS)('a %s of two drops a payload-less id met first and still leases two, in order', async (call) => {
      const store = backend.store();
      const name = `stale-mid-${call}`;
      const { queue, time } = make({ name, quorum: store });
      const keys = new QueueKeys('dynoq', name, backend.queueDefaults.hashTag);
      expect(await staleMidPopDiffers(call, { queue: queue as AtomicQueue, store, keys, advance: (ms) => time.advance(ms) })).toBeNull();
    });

    it('the re-queue script re-checks expiry: an extended lease is not taken back', async () => {
      const { queue, time } = make();
      await queue.push([{ id: 'e', payload: '' }]);
      const [m] = await queue.pop(1);
      await time.advance(900);
      expect(await queue.setUnackTimeout('e', 5_000, m!.token)).toBe(true);
      await time.advance(200);
      expect(await queue.processUnacks()).toBe(0);
    });

    it('rejects legacy-only and atomic-only option mixes', () => {
      expect(() => make({ mode: 'legacy', serverTime: true })).toThrow(/atomic-mode/);
    });
  });
});
