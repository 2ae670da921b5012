import { describe, expect, it } from 'vitest';
import type { BaseQueue } from '../../src/queue/base-queue.js';
import { createQueue } from '../../src/queue/create-queue.js';
import type { QueueMode } from '../../src/queue/dyno-queue.js';
import { PROCESS_UNACKS_BATCH } from '../../src/queue/legacy-queue.js';
import { DEFAULT_REAPER_BATCH } from '../../src/queue/options.js';
import { backendNames, useBackend } from '../support/backends.js';
import { FakeTime } from '../support/fake-time.js';

// Issue 31, item 3: the reaper re-queues expired leases oldest first, bounded per call, so a
// backlog of expired leases larger than one call takes cannot starve the oldest. The oldest leases
// are given the ids that sort last, so that a reaper taking ids in name order (Redis's order for
// equal scores) would fail here.

const LEASE = 60_000;
const CASES: [QueueMode, 'processUnacks' | 'atomicProcessUnacks', number][] = [
  ['atomic', 'processUnacks', DEFAULT_REAPER_BATCH],
  ['legacy', 'processUnacks', PROCESS_UNACKS_BATCH],
  ['legacy', 'atomicProcessUnacks', PROCESS_UNACKS_BATCH],
];

describe.each(backendNames())('the reaper re-queues oldest first, bounded per call, on %s', (backendName) => {
  const backend = useBackend(backendName);
  let counter = 0;

  it.each(CASES)('%s %s: a backlog of more than %i expired leases drains oldest first over successive calls', async (mode, call, batch) => {
    const time = new FakeTime();
    const queue = createQueue({
      name: `reaper${++counter}`,
      mode,
      quorum: backend.store(),
      clock: time,
      timers: time,
      unackInterval: 0,
      unackTimeout: LEASE,
      ...backend.queueDefaults,
    }) as BaseQueue;
    const reap = () => queue[call]();
    const leased = async (ids: readonly string[]) => {
      const out: string[] = [];
      for (const id of ids) if ((await queue.getUnackTime(id)) !== null) out.push(id);
      return out;
    };
    const popAll = async (n: number) => expect((await queue.pop(n)).length).toBe(n);

    // oldest leases: 3 ids that sort after every younger one; then `batch` younger leases, 5 ms later
    const oldest = ['z0', 'z1', 'z2'];
    const younger = Array.from({ length: batch }, (_, i) => `a${String(i).padStart(5, '0')}`);
    await queue.push(oldest.map((id) => ({ id, payload: id })));
    await queue.push(younger.map((id) => ({ id, payload: id, timeout: 5 })));
    await popAll(oldest.length);
    await time.advance(5);
    await popAll(batch);
    await time.advance(LEASE + 10);

    // first call: bounded, and the oldest leases are among those it took back
    expect(await reap()).toBe(batch);
    expect(await leased(oldest)).toEqual([]);
    const leftover = await leased(younger);
    expect(leftover).toHaveLength(oldest.length);

    // the re-queued messages are leased again and expire too: younger leases now outnumber a call,
    // and several of them sort before the leftovers, yet the leftovers (older) go back first
    await popAll(batch);
    await time.advance(LEASE + 10);
    expect(await reap()).toBe(batch);
    expect(await leased(leftover)).toEqual([]);

    // successive calls finish the backlog; nothing is left leased to nobody
    expect(await reap()).toBe(oldest.length);
    expect(await reap()).toBe(0);
    expect(Object.values(await queue.shardSizes()).reduce((n, s) => n + s.uacked, 0)).toBe(0);
    expect(await queue.size()).toBe(batch + oldest.length);
    await queue.close();
  }, 120_000);
});
