import { describe, expect, it } from 'vitest';
import { QueueKeys } from '../../src/queue/keys.js';
import { createMultiQueue, type MultiQueue } from '../../src/queue/multi-queue.js';
import { clusterKeySlot } from '../support/key-slot.js';
import { backendNames, useBackend } from '../support/backends.js';
import { FakeTime } from '../support/fake-time.js';

// Issue 15, item 7: one queue across several masters (Dyno v2's MultiRedisQueue): each shard is its
// own single-shard queue, hash-tagged by shard, so shards sit on different Cluster slots.

describe.each(backendNames({ cluster: true }))('a multi-master queue on %s', (backendName) => {
  const backend = useBackend(backendName);
  let counter = 0;
  const SHARDS = ['a', 'b', 'c'];
  const make = (name: string, current: string, time: FakeTime): MultiQueue =>
    createMultiQueue({
      name,
      shards: SHARDS.map((s) => ({ name: s, store: backend.store() })),
      currentShard: current,
      clock: time,
      timers: time,
      unackInterval: 0,
      hashTag: true,
    });

  it('spreads pushes over the shards, each instance pops its own, acks and lookups reach any shard', async () => {
    const time = new FakeTime();
    const name = `multi${++counter}`;
    const [qa, qb, qc] = SHARDS.map((s) => make(name, s, time)) as [MultiQueue, MultiQueue, MultiQueue];
    const ids = await qa.push(Array.from({ length: 30 }, (_, i) => ({ id: `m${i}`, payload: `p${i}` })));
    expect(ids).toHaveLength(30);
    expect(Object.values(await qa.shardSizes()).map((s) => s.size)).toEqual([10, 10, 10]);
    expect(await qb.size()).toBe(30);
    const popped = [...(await qa.pop(20)), ...(await qb.pop(20)), ...(await qc.pop(20))];
    expect(popped.map((m) => m.id).sort()).toEqual(ids.slice().sort());
    // any instance can ack any shard's message (its own shard first, then the others)
    for (const m of popped.slice(0, 15)) expect(await qa.ack(m.id, m.token)).toBe(true);
    // ackManyAndPop: the local master acks what it holds in one call, the others are tried after
    const step = await qb.ackManyAndPop([...popped.slice(15, 25), { id: 'nobody' }], 5);
    expect(step).toEqual({ acked: [...Array(10).fill(true), false], messages: [] });
    expect(await qb.ackMany(popped.slice(25))).toEqual(Array(5).fill(true));
    expect(await qc.size()).toBe(0);
    expect(await qc.get('m1')).toBeNull();
    await qa.push([{ id: 'late', payload: 'invoice 7' }]);
    expect(await qb.containsPredicate('invoice %d')).toBe(true);
    expect(await qc.ensure({ id: 'late', payload: 'again' })).toBe(false);
    expect(await qc.remove('late')).toBe(true);
    for (const q of [qa, qb, qc]) await q.close();
  });

  it('each shard keeps all of its keys, payloads included, under its own hash tag', () => {
    const slots = SHARDS.map((s) => {
      const keys = new QueueKeys('dynoq', `orders:${s}`, true);
      const all = [keys.message, keys.meta, keys.leases, keys.counters, keys.queue(s), keys.ready(s), keys.unack(s)].map(clusterKeySlot);
      expect(new Set(all).size).toBe(1);
      return all[0];
    });
    expect(new Set(slots).size).toBe(3);
  });
});
