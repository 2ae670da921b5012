import { MaxRetriesPerRequestError } from 'ioredis/built/errors/index.js';
import { describe, expect, it } from 'vitest';
import { probingStore } from '../../src/real/twin/probing-store.js';
import { CallEffects } from '../../src/sim/store/call-effects.js';
import { CallProbe } from '../../src/sim/store/call-probe.js';
import { StoreFullError } from '../../src/store/errors.js';
import type { Store } from '../../src/store/store.js';

/** A store whose hset answers, or fails with `error`; reads are counted apart. */
function fakeStore(error?: Error): Store {
  return {
    hset: () => (error ? Promise.reject(error) : Promise.resolve(0)),
    hget: () => Promise.resolve(null),
  } as unknown as Store;
}

describe('the probe of a real twin’s store (what a failed call may have written)', () => {
  const call = async (store: Store, votes: boolean, connected = false) => {
    const probe = new CallProbe();
    probe.effects = new CallEffects();
    const s = probingStore(store, probe, votes, () => connected);
    await s.hget('k', 'f');
    const readOnly = probe.mayHaveApplied;
    await s.hset('k', 'f', 'v').catch(() => undefined);
    return { readOnly, mayHaveApplied: probe.mayHaveApplied, voted: probe.effects.applied };
  };

  it('a read writes nothing; an answered write may have applied; a refusal on Dynomite counts as applied somewhere', async () => {
    expect(await call(fakeStore(), false)).toEqual({ readOnly: false, mayHaveApplied: true, voted: false });
    expect(await call(fakeStore(), true)).toEqual({ readOnly: false, mayHaveApplied: true, voted: true });
  });

  it('a write that failed after it may have left is unknown; one ioredis never sent (MaxRetriesPerRequestError from its offline queue) is not', async () => {
    expect((await call(fakeStore(new Error('Command timed out')), false)).mayHaveApplied).toBe(true);
    expect((await call(fakeStore(new MaxRetriesPerRequestError(1) as unknown as Error), true)).mayHaveApplied).toBe(false);
  });

  it('MaxRetriesPerRequestError on a write made while the connection was ready is unknown: it was in flight (seen applied on all backends)', async () => {
    expect((await call(fakeStore(new MaxRetriesPerRequestError(1) as unknown as Error), true, true)).mayHaveApplied).toBe(true);
    expect((await call(fakeStore(new MaxRetriesPerRequestError(1) as unknown as Error), false, true)).mayHaveApplied).toBe(true);
  });

  it('a write Redis refused as out of memory (StoreFullError) was not applied, as the simulator scores its OOM reply; on Dynomite another replica may have run it', async () => {
    const oom = () => new StoreFullError("OOM command not allowed when used memory > 'maxmemory'.");
    expect((await call(fakeStore(oom()), false, true)).mayHaveApplied).toBe(false);
    expect((await call(fakeStore(oom()), true, true)).mayHaveApplied).toBe(true);
    // a push refused after earlier scripts of it were written did write
    expect((await call(fakeStore(new StoreFullError('OOM command not allowed', ['m1'])), false, true)).mayHaveApplied).toBe(true);
  });

  // A legacy remove() of a leased message: its first ZREM takes the lease (1), the next finds nothing
  // in the queue (0) and it answers false. The simulated store sees the change and scores the call
  // unknown; the real twin must see it too, from the count in the reply.
  it('a write whose reply counts a change marks the call as having changed data; a count of 0 does not', async () => {
    const changed = async (reply: number, votes = false) => {
      const probe = new CallProbe();
      probe.effects = new CallEffects();
      const s = probingStore({ zrem: () => Promise.resolve(reply) } as unknown as Store, probe, votes);
      await s.zrem('k', ['m']);
      return probe.effects.applied;
    };
    expect(await changed(1)).toBe(true);
    expect(await changed(0)).toBe(false);
    expect(await changed(0, true)).toBe(true);
  });

  it('the change is the call’s that sent the write, even if another call began before the reply', async () => {
    const probe = new CallProbe();
    const first = new CallEffects();
    probe.effects = first;
    let answer: (n: number) => void = () => undefined;
    const s = probingStore({ hdel: () => new Promise<number>((resolve) => (answer = resolve)) } as unknown as Store, probe, false);
    const pending = s.hdel('k', ['f']);
    const second = new CallEffects();
    probe.effects = second;
    answer(1);
    await pending;
    expect([first.applied, second.applied]).toEqual([true, false]);
  });
});
