import { describe, expect, it } from 'vitest';
import type { BaseQueue } from '../../src/queue/base-queue.js';
import { createQueue } from '../../src/queue/create-queue.js';
import { InvalidArgumentError } from '../../src/queue/errors.js';
import { MAX_PAYLOAD_BYTES_LIMIT, POP_SCRIPT_COUNT, PUSH_SCRIPT_BYTES, PUSH_SCRIPT_MESSAGES, REQUEUE_SCRIPT_COUNT } from '../../src/queue/limits.js';
import type { QueueOptionsInput } from '../../src/queue/options.js';
import type { Store } from '../../src/store/store.js';
import { backendNames, useBackend } from '../support/backends.js';
import { FakeTime, settle } from '../support/fake-time.js';

// Bad input gets a typed error before anything is written or leased, and no single script a
// call sends does more than one script's worth of work, whatever the caller asks for.

/** Every script call the queue sends through `store`: its name and ARGV. */
function recording(store: Store): { store: Store; calls: { name: string; args: readonly string[] }[] } {
  const calls: { name: string; args: readonly string[] }[] = [];
  const proxy = new Proxy(store, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver);
      if (prop === 'runScript' || prop === 'runScriptThenWait') {
        return (script: { name: string }, keys: readonly string[], args: readonly string[], ...rest: unknown[]) => {
          calls.push({ name: script.name, args });
          return (value as (...a: unknown[]) => unknown).call(target, script, keys, args, ...rest);
        };
      }
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  return { store: proxy, calls };
}

describe.each(backendNames())('bounded and typed input on %s', (backendName) => {
  const backend = useBackend(backendName);
  let counter = 0;
  const make = (over: Partial<QueueOptionsInput> = {}, time = new FakeTime()) => {
    const rec = recording(backend.store());
    const queue = createQueue({ name: `bounded-in${++counter}`, quorum: rec.store, clock: time, timers: time, unackInterval: 0, unackTimeout: 1_000, ...backend.queueDefaults, ...over }) as BaseQueue;
    return { queue, time, calls: rec.calls };
  };
  const small = (n: number, tag = 'm') => Array.from({ length: n }, (_, i) => ({ id: `${tag}${i}`, payload: `p${i}` }));

  describe('signal', () => {
    it.each([{}, 'abort', 1, null])('a signal that is not an AbortSignal (%j) is refused with a typed error and leaves no timer behind', async (signal) => {
      const { queue, time } = make();
      await queue.push(small(1));
      await expect(queue.pop(1, { wait: 50, signal: signal as never })).rejects.toThrow(InvalidArgumentError);
      await expect(queue.consume({ wait: 50, signal: signal as never }).next()).rejects.toThrow(InvalidArgumentError);
      expect(time.pendingTimers).toBe(0);
      await time.advance(100);
      await settle();
      // nothing was leased: the message is still there for the next pop
      expect((await queue.pop(1)).map((m) => m.id)).toEqual(['m0']);
      await queue.close();
    });

    it('a real AbortSignal still ends a long-poll', async () => {
      const { queue, time } = make();
      const controller = new AbortController();
      const polled = queue.pop(1, { wait: 10_000, signal: controller.signal });
      await time.advance(20);
      controller.abort();
      expect(await polled).toEqual([]);
      await queue.close();
    });
  });

  describe('push of any size', () => {
    it(`30,000 messages go in scripts of at most ${PUSH_SCRIPT_MESSAGES}, every one pushed`, async () => {
      const { queue, calls } = make();
      const ids = await queue.push(small(30_000));
      expect(ids).toHaveLength(30_000);
      const pushes = calls.filter((c) => c.name === 'atomicPush');
      expect(pushes.length).toBe(Math.ceil(30_000 / PUSH_SCRIPT_MESSAGES));
      expect(await queue.size()).toBe(30_000);
      await queue.close();
    }, 120_000);

    it(`large payloads go in scripts of at most ${PUSH_SCRIPT_BYTES} stored bytes`, async () => {
      const { queue, calls } = make();
      const payload = 'x'.repeat(200 * 1024);
      await queue.push(Array.from({ length: 20 }, (_, i) => ({ id: `big${i}`, payload })));
      const pushes = calls.filter((c) => c.name === 'atomicPush');
      expect(pushes.length).toBeGreaterThanOrEqual(4);
      for (const p of pushes) expect(p.args.reduce((n, a) => n + Buffer.byteLength(a), 0)).toBeLessThanOrEqual(PUSH_SCRIPT_BYTES + 4096);
      expect(await queue.size()).toBe(20);
      await queue.close();
    }, 60_000);

    it(`maxPayloadBytes above ${MAX_PAYLOAD_BYTES_LIMIT} is refused`, () => {
      expect(() => make({ maxPayloadBytes: MAX_PAYLOAD_BYTES_LIMIT + 1 })).toThrow(InvalidArgumentError);
      expect(() => make({ maxPayloadBytes: MAX_PAYLOAD_BYTES_LIMIT }).queue.close()).not.toThrow();
    });
  });

  describe('randomId', () => {
    it.each([() => '', () => 7, () => undefined, () => 'x'.repeat(257)])('a token source returning %s is refused before anything is leased', async (randomId) => {
      const { queue } = make({ randomId: randomId as () => string });
      await queue.push(small(1));
      await expect(queue.pop(1)).rejects.toThrow(InvalidArgumentError);
      await expect(queue.popWithMsgId('m0')).rejects.toThrow(InvalidArgumentError);
      expect(await queue.shardSizes()).toEqual({ a: { size: 1, uacked: 0 } });
      await queue.close();
    });

    it('a token source that repeats is refused at the repeat, and the earlier lease stands', async () => {
      const { queue } = make({ randomId: () => 't' });
      await queue.push(small(2));
      const [first] = await queue.pop(1);
      expect(first!.token).toBe('t');
      await expect(queue.pop(1)).rejects.toThrow(/twice in a row/);
      expect(await queue.shardSizes()).toEqual({ a: { size: 1, uacked: 1 } });
      expect(await queue.ack(first!.id, 't')).toBe(true);
      await queue.close();
    });
  });

  describe('one script stays within the stall budget', () => {
    it(`pop(10,000) leases in scripts of at most ${POP_SCRIPT_COUNT}, each under its own token`, async () => {
      const { queue, calls } = make();
      for (let i = 0; i < 10_000; i += PUSH_SCRIPT_MESSAGES) await queue.push(small(PUSH_SCRIPT_MESSAGES, `b${i}-`));
      const popped = await queue.pop(10_000);
      expect(popped).toHaveLength(10_000);
      const pops = calls.filter((c) => c.name === 'atomicPop');
      expect(pops).toHaveLength(10_000 / POP_SCRIPT_COUNT);
      for (const p of pops) expect(Number(p.args[2])).toBeLessThanOrEqual(POP_SCRIPT_COUNT);
      expect(new Set(popped.map((m) => m.token)).size).toBe(pops.length);
      await queue.close();
    }, 120_000);

    it(`ackAndPop and ackManyAndPop with a count over ${POP_SCRIPT_COUNT} pop in bounded scripts too`, async () => {
      const { queue, calls } = make();
      for (let i = 0; i < 1_500; i += PUSH_SCRIPT_MESSAGES) await queue.push(small(PUSH_SCRIPT_MESSAGES, `c${i}-`));
      const [one] = await queue.pop(1);
      const a = await queue.ackAndPop(one!.id, one!.token, 700);
      expect(a.acked).toBe(true);
      expect(a.messages).toHaveLength(700);
      const b = await queue.ackManyAndPop([{ id: a.messages[0]!.id, token: a.messages[0]!.token }], 700);
      expect(b.acked).toEqual([true]);
      expect(b.messages).toHaveLength(700);
      for (const c of calls.filter((x) => /Pop$/.test(x.name) && x.name !== 'atomicPop')) expect(Number(c.args[2])).toBeLessThanOrEqual(POP_SCRIPT_COUNT);
      await queue.close();
    }, 120_000);

    it(`processUnacks with reaperBatch 100,000 re-queues in scripts of at most ${REQUEUE_SCRIPT_COUNT}`, async () => {
      const time = new FakeTime();
      const { queue, calls } = make({ reaperBatch: 100_000 }, time);
      const n = REQUEUE_SCRIPT_COUNT * 2 + 300;
      for (let i = 0; i < n; i += PUSH_SCRIPT_MESSAGES) await queue.push(small(Math.min(PUSH_SCRIPT_MESSAGES, n - i), `r${i}-`));
      expect(await queue.pop(n)).toHaveLength(n);
      await time.advance(2_000);
      expect(await queue.processUnacks()).toBe(n);
      const reaps = calls.filter((c) => c.name === 'atomicRequeueExpired');
      expect(reaps).toHaveLength(3);
      for (const r of reaps) expect(Number(r.args[2])).toBeLessThanOrEqual(REQUEUE_SCRIPT_COUNT);
      await queue.close();
    }, 120_000);
  });

  describe('requireLeaseToken', () => {
    it('by default a call without a token acts on the current lease, whoever holds it', async () => {
      const { queue } = make();
      await queue.push(small(3));
      await queue.pop(3);
      expect(await queue.ack('m0')).toBe(true);
      expect(await queue.release('m1')).toBe(true);
      expect(await queue.remove('m2')).toBe(true);
      await queue.close();
    });

    it('with it, ack, ackMany, release, setUnackTimeout and ackAndPop without a token are refused, remove of a leased message answers false', async () => {
      const { queue } = make({ requireLeaseToken: true });
      await queue.push(small(3));
      const held = await queue.pop(2);
      const [m0, m1] = held;
      await expect(queue.ack('m0')).rejects.toThrow(InvalidArgumentError);
      await expect(queue.ackMany([{ id: 'm0' }])).rejects.toThrow(InvalidArgumentError);
      await expect(queue.release('m0')).rejects.toThrow(InvalidArgumentError);
      await expect(queue.setUnackTimeout('m0', 5_000)).rejects.toThrow(InvalidArgumentError);
      await expect(queue.ackAndPop('m0', undefined, 1)).rejects.toThrow(InvalidArgumentError);
      expect(await queue.remove('m0')).toBe(false);
      expect(await queue.remove('m0', 'not-the-token')).toBe(false);
      expect(await queue.shardSizes()).toEqual({ a: { size: 1, uacked: 2 } });
      // with the tokens every call works; a message nobody leases needs none
      expect(await queue.setUnackTimeout('m0', 5_000, m0!.token)).toBe(true);
      expect(await queue.ack('m0', m0!.token)).toBe(true);
      expect(await queue.remove('m1', m1!.token)).toBe(true);
      expect(await queue.remove('m2')).toBe(true);
      expect(await queue.size()).toBe(0);
      await queue.close();
    });

    it('is an atomic-mode option', () => {
      expect(() => make({ mode: 'legacy', requireLeaseToken: true })).toThrow(InvalidArgumentError);
    });
  });
});
