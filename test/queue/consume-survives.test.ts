import { describe, expect, it } from 'vitest';
import { CONSUME_RETRY_FIRST_MS, CONSUME_RETRY_MAX_MS, type BaseQueue } from '../../src/queue/base-queue.js';
import { createQueue } from '../../src/queue/create-queue.js';
import type { QueueMode } from '../../src/queue/dyno-queue.js';
import { InvalidArgumentError } from '../../src/queue/errors.js';
import type { QueueOptionsInput } from '../../src/queue/options.js';
import { StoreFullError } from '../../src/store/errors.js';
import type { Store } from '../../src/store/store.js';
import { backendNames, useBackend } from '../support/backends.js';
import { FakeTime, settle } from '../support/fake-time.js';

// A consume() loop written once, as the README writes it, outlives store errors: it reports each
// to onError, backs off (capped) and pops again; it ends only on what cannot heal (close, abort,
// the queue's own typed errors).

/** A store that fails every call while `down` is set, as a connection to a Redis that is restarting. */
function outage(store: Store, error: () => Error = () => new Error('connect ECONNREFUSED 127.0.0.1:6379')): { store: Store; set(down: boolean): void } {
  let down = false;
  const proxy = new Proxy(store, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => (down ? Promise.reject(error()) : (value as (...a: unknown[]) => unknown).apply(target, args));
    },
  });
  return { store: proxy, set: (d) => (down = d) };
}

const MODES: QueueMode[] = ['atomic', 'legacy'];

describe.each(backendNames())('consume() outlives store errors on %s', (backendName) => {
  const backend = useBackend(backendName);
  let counter = 0;
  const make = (mode: QueueMode, store: Store, time: FakeTime, over: Partial<QueueOptionsInput> = {}, name = `survives${++counter}`) =>
    createQueue({ name, mode, quorum: store, clock: time, timers: time, unackInterval: 0, unackTimeout: 60_000, pollInterval: 10, ...backend.queueDefaults, ...over }) as BaseQueue;
  /**
   * Lets pending promises run, advancing the fake clock while the loop waits on a timer, until `done`.
   * Bounded by real time (a loaded machine answers a real Redis slowly), and a step that never comes
   * fails here, not later as a puzzling assertion.
   */
  const until = async (time: FakeTime, done: () => boolean) => {
    const giveUpAt = Date.now() + 30_000;
    while (!done()) {
      if (Date.now() > giveUpAt) throw new Error('until: the condition never held within 30 s');
      await settle(1);
      if (!done() && time.pendingTimers > 0) await time.advance(10);
    }
  };

  describe.each(MODES)('%s mode', (mode) => {
    it('a loop goes on across an outage: every error reaches onError with a doubling, capped pause, and every message is delivered', async () => {
      const time = new FakeTime();
      const base = backend.store();
      const link = outage(base);
      const queue = make(mode, link.store, time);
      const producer = make(mode, base, time, {}, queue.name);
      await producer.push([{ id: 'before', payload: 'x' }]);
      const seen: string[] = [];
      const pauses: number[] = [];
      const loop = (async () => {
        for await (const m of queue.consume({ batch: 1, wait: 100, onError: (_e, ms) => pauses.push(ms) })) {
          seen.push(m.id);
          // the README's loop: ack what was handled
          await producer.ack(m.id, m.token);
        }
        return 'ended';
      })();
      await until(time, () => seen.length === 1);
      link.set(true);
      await until(time, () => pauses.length >= 8);
      expect(pauses.slice(0, 8)).toEqual([100, 200, 400, 800, 1_600, 3_200, CONSUME_RETRY_MAX_MS, CONSUME_RETRY_MAX_MS]);
      expect(pauses[0]).toBe(CONSUME_RETRY_FIRST_MS);
      // pushed during the outage (through another connection), then the store comes back
      await producer.push([{ id: 'during', payload: 'y' }]);
      link.set(false);
      await until(time, () => seen.length === 2);
      await producer.push([{ id: 'after', payload: 'z' }]);
      await until(time, () => seen.length === 3);
      expect(seen).toEqual(['before', 'during', 'after']);
      await queue.close();
      expect(await loop).toBe('ended');
      expect(await producer.size()).toBe(0);
      expect((await producer.shardSizes()).a!.uacked).toBe(0);
      await producer.close();
    }, 60_000);

    it('a full Redis heals too: its StoreFullError reaches onError and the loop goes on once memory is freed', async () => {
      const time = new FakeTime();
      const base = backend.store();
      const link = outage(base, () => new StoreFullError("OOM command not allowed when used memory > 'maxmemory'."));
      const queue = make(mode, link.store, time);
      const producer = make(mode, base, time, {}, queue.name);
      const seen: string[] = [];
      const errors: unknown[] = [];
      link.set(true);
      const loop = (async () => {
        for await (const m of queue.consume({ batch: 1, wait: 100, onError: (e) => errors.push(e) })) {
          seen.push(m.id);
          await producer.ack(m.id, m.token);
        }
        return 'ended';
      })();
      await until(time, () => errors.length >= 2);
      expect(errors.every((e) => e instanceof StoreFullError)).toBe(true);
      await producer.push([{ id: 'freed', payload: 'x' }]);
      link.set(false);
      await until(time, () => seen.length === 1);
      expect(seen).toEqual(['freed']);
      await queue.close();
      expect(await loop).toBe('ended');
      await producer.close();
    }, 60_000);

    it('an abort during the pause ends the loop at once', async () => {
      const time = new FakeTime();
      const link = outage(backend.store());
      link.set(true);
      const queue = make(mode, link.store, time);
      const stop = new AbortController();
      let errors = 0;
      const loop = (async () => {
        for await (const _ of queue.consume({ wait: 0, signal: stop.signal, onError: () => errors++ })) void _;
        return 'ended';
      })();
      await until(time, () => errors > 0);
      stop.abort();
      expect(await loop).toBe('ended');
      await queue.close();
    });

    it('a failing onError does not end the loop', async () => {
      const time = new FakeTime();
      const link = outage(backend.store());
      link.set(true);
      const queue = make(mode, link.store, time);
      let errors = 0;
      const loop = (async () => {
        for await (const _ of queue.consume({ wait: 0, onError: () => { errors++; throw new Error('hook failed'); } })) void _;
        return 'ended';
      })();
      await until(time, () => errors >= 3);
      await queue.close();
      expect(await loop).toBe('ended');
    });
  });

  it('what cannot heal ends the loop: a token source that repeats is thrown from it', async () => {
    const time = new FakeTime();
    const queue = make('atomic', backend.store(), time, { randomId: () => 'same' });
    await queue.push([{ id: 'a', payload: '1' }, { id: 'b', payload: '2' }]);
    const seen: string[] = [];
    const errors: unknown[] = [];
    const loop = (async () => {
      for await (const m of queue.consume({ wait: 0, onError: (e) => errors.push(e) })) seen.push(m.id);
    })();
    await expect(loop).rejects.toThrow(InvalidArgumentError);
    expect(seen).toEqual(['a']);
    expect(errors).toEqual([]);
    await queue.close();
  });

  it('a bad onError is refused', async () => {
    const queue = make('atomic', backend.store(), new FakeTime());
    await expect(queue.consume({ onError: 'log' as never }).next()).rejects.toThrow(InvalidArgumentError);
    await queue.close();
  });
});
