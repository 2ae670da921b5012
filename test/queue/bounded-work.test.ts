import { describe, expect, it } from 'vitest';
import type { AtomicQueue } from '../../src/queue/atomic-queue.js';
import { createQueue } from '../../src/queue/create-queue.js';
import { QueueKeys } from '../../src/queue/keys.js';
import type { QueueOptionsInput } from '../../src/queue/options.js';
import { PROMOTE_BATCH } from '../../src/queue/scripts/atomic-common.js';
import { backendNames, useBackend } from '../support/backends.js';
import { PROMOTING_CALLS, promotionBoundDiffers } from '../support/atomic-pop-edges.js';
import { FakeTime } from '../support/fake-time.js';

// Issue 15, item 2: every script call does a bounded amount of work. Promotion moves at most
// PROMOTE_BATCH due messages per call; the stale search and the predicates walk pages; clear unlinks.

describe.each(backendNames())('bounded work per script call on %s', (backendName) => {
  const backend = useBackend(backendName);
  let counter = 0;
  const make = (over: Partial<QueueOptionsInput> = {}) => {
    const time = new FakeTime();
    const store = backend.store();
    const name = `bounded${++counter}`;
    const queue = createQueue({ name, quorum: store, clock: time, timers: time, unackInterval: 0, ...backend.queueDefaults, ...over }) as AtomicQueue;
    const keys = new QueueKeys('dynoq', name, backend.queueDefaults.hashTag);
    return { queue, time, store, keys };
  };
  /** n delayed messages; the most urgent (priority 0) is the one due last. */
  const backlog = (n: number) =>
    Array.from({ length: n }, (_, i) => ({ id: `m${i}`, payload: `p${i}`, timeout: 1_000 + i, priority: i === n - 1 ? 0 : 50 }));

  it(`a pop promotes at most ${PROMOTE_BATCH} due messages, earliest due first; promoteDue finishes the backlog in bounded steps`, async () => {
    const { queue, time, store, keys } = make();
    const n = PROMOTE_BATCH * 2 + 500;
    for (let i = 0; i < n; i += 500) await queue.push(backlog(n).slice(i, i + 500));
    await time.advance(1_000 + n);
    const [first] = await queue.pop(1);
    // the urgent message fell due last, so it is not among the first batch promoted
    expect(first!.priority).toBe(50);
    expect(await store.zcard(keys.queue('a'))).toBe(n - PROMOTE_BATCH);
    expect(await queue.promoteDue()).toBe(n - PROMOTE_BATCH);
    expect(await store.zcard(keys.queue('a'))).toBe(0);
    // once promoted, priority orders every due message
    const [urgent] = await queue.pop(1);
    expect(urgent!.id).toBe(`m${n - 1}`);
    expect(await queue.size()).toBe(n - 2);
    await queue.close();
  }, 60_000);

  it.each(PROMOTING_CALLS)(`one %s promotes exactly ${PROMOTE_BATCH} of ${PROMOTE_BATCH + 1} due messages, earliest due first`, async (call) => {
    const { queue, time, store, keys } = make();
    expect(await promotionBoundDiffers(call, { queue, store, keys, advance: (ms) => time.advance(ms) })).toBeNull();
    await queue.close();
  }, 60_000);

  it('with promoteInReaper the reaper promotes a whole backlog within one period, so priority orders all due messages', async () => {
    const { queue, time, store, keys } = make({ unackInterval: 100, promoteInReaper: true });
    const n = PROMOTE_BATCH + 300;
    for (let i = 0; i < n; i += 500) await queue.push(backlog(n).slice(i, i + 500));
    await time.advance(1_000 + n);
    // let reaper periods pass (each reaps, then is rescheduled) until nothing due is left in QUEUE
    for (let i = 0; i < 200 && (await store.zcard(keys.queue('a'))) > 0; i++) {
      await time.advance(100);
      await new Promise((r) => setTimeout(r, 5));
    }
    expect(await store.zcard(keys.queue('a'))).toBe(0);
    const [urgent] = await queue.pop(1);
    expect(urgent!.id).toBe(`m${n - 1}`);
    await queue.close();
  }, 60_000);

  it('findStaleMessages pages through the hash and every set and still finds every stale id', async () => {
    const { queue, store, keys } = make({ shards: { allShards: ['a', 'b'], currentShard: 'a' } });
    const ids = Array.from({ length: 1_200 }, (_, i) => ({ id: `s${i}`, payload: 'x' }));
    for (let i = 0; i < ids.length; i += 400) await queue.push(ids.slice(i, i + 400));
    await queue.pop(50);
    // queued or leased without a payload, and payloads in no set
    const orphaned = ['s3', 's700', 's1199', 's0', 's1'];
    await store.hdel(keys.message, orphaned);
    for (const id of ['ghost1', 'ghost2']) await store.hset(keys.message, id, '{"id":"x","payload":"y"}');
    expect((await queue.findStaleMessages()).sort()).toEqual([...orphaned, 'ghost1', 'ghost2'].sort());
    await queue.clear();
    expect(await queue.size()).toBe(0);
    expect(await store.hlen(keys.message)).toBe(0);
    await queue.close();
  }, 60_000);
});
