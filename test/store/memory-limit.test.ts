import type { Cluster, Redis } from 'ioredis';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createQueue, type DynoQueue } from '../../src/public/dynoq.js';
import { connect } from '../../src/store/connect.js';
import { EvictionPolicyError, StoreFullError } from '../../src/store/errors.js';
import { IoredisStore } from '../../src/store/ioredis-store.js';
import { probingStore } from '../../src/real/twin/probing-store.js';
import { CallProbe } from '../../src/sim/store/call-probe.js';
import { legacyBulkPopLocal } from '../../src/queue/scripts/legacy-bulk-pop-local.js';
import { redisRequired, redisServerBinary, startRedisServer, type RedisServer } from '../support/redis-server.js';

/**
 * A queue on a Redis with `maxmemory`: what a full Redis does to pushes and consumers
 * (`noeviction`), and the start-up refusal of a policy that evicts the queue's keys (`allkeys-lru`).
 * Each test is a row of what was measured before the fix (atomic pushes wrote 116 MB past a 2 MB
 * limit; allkeys-lru lost 92 % of acknowledged pushes; legacy pushes failed with an untyped error).
 */
const available = redisServerBinary() !== null;
if (!available && redisRequired) throw new Error('REQUIRE_REDIS=1 but redis-server is not installed');

const LIMIT = 2 * 1024 * 1024;
const PAYLOAD = 'x'.repeat(100_000);
const BATCH = 10;

async function usedMemory(client: Redis | Cluster): Promise<number> {
  return Number(/used_memory:(\d+)/.exec(await client.info('memory'))![1]);
}

/** Pushes `batches` batches of BATCH × 100 KB; the ids of the pushes Redis accepted and every refusal. */
async function pushBatches(queue: DynoQueue, batches: number): Promise<{ accepted: string[]; refusals: unknown[] }> {
  const accepted: string[] = [];
  const refusals: unknown[] = [];
  for (let b = 0; b < batches; b++) {
    const batch = Array.from({ length: BATCH }, (_, i) => ({ id: `m-${b}-${i}`, payload: PAYLOAD }));
    try {
      accepted.push(...(await queue.push(batch)));
    } catch (err) {
      refusals.push(err);
    }
  }
  return { accepted, refusals };
}

/** Pops and acks until a pop comes back empty; the ids acked. */
async function drain(queue: DynoQueue): Promise<string[]> {
  const acked: string[] = [];
  for (;;) {
    const popped = await queue.pop(5);
    if (popped.length === 0) return acked;
    for (const m of popped) if (await queue.ack(m.id, (m as { token?: string }).token)) acked.push(m.id);
  }
}

describe.runIf(available)('a queue on a full Redis (maxmemory 2mb, noeviction)', () => {
  let server: RedisServer;
  let admin: Redis;
  beforeAll(async () => {
    server = await startRedisServer({ args: ['--maxmemory-policy', 'noeviction'] });
    admin = connect(server.url) as Redis;
  }, 20_000);
  afterAll(async () => {
    admin?.disconnect();
    await server?.stop();
  });
  beforeEach(async () => {
    await admin.config('SET', 'maxmemory', '0');
    await admin.flushall();
    await admin.config('SET', 'maxmemory', String(LIMIT));
  });

  it('atomic: pushes past the limit are refused whole with StoreFullError, memory stays within the limit plus one push, and the queue drains', async () => {
    const client = connect(server.url);
    const queue = createQueue({ name: 'full', quorum: new IoredisStore(client), unackInterval: 0 });
    try {
      let peak = 0;
      const accepted: string[] = [];
      const refusals: unknown[] = [];
      for (let round = 0; round < 10; round++) {
        const r = await pushBatches(queue, 10);
        accepted.push(...r.accepted);
        refusals.push(...r.refusals);
        peak = Math.max(peak, await usedMemory(admin));
      }
      expect(refusals.length).toBeGreaterThan(0);
      for (const err of refusals) {
        expect(err).toBeInstanceOf(StoreFullError);
        expect((err as StoreFullError).reply).toMatch(/^OOM command not allowed/);
      }
      // one push is 10 × 100 KB; the Redis base memory is under the limit
      expect(peak).toBeLessThan(LIMIT + BATCH * PAYLOAD.length * 1.5);
      // each script refused whole: the queue holds exactly the accepted pushes and, of a refused push
      // of several scripts (10 × 100 KB is more than one script's 1 MiB), the ids its error names
      const written = [...accepted, ...refusals.flatMap((err) => (err as StoreFullError).written)];
      expect(await queue.size()).toBe(written.length);
      // the consumers drain it under the limit: every written message is delivered and acked
      const acked = await drain(queue);
      expect(acked.sort()).toEqual([...written].sort());
      expect(await queue.size()).toBe(0);
      // and once drained, pushes fit again
      await expect(queue.push([{ id: 'after', payload: 'small' }])).resolves.toEqual(['after']);
    } finally {
      await queue.close();
      client.disconnect();
    }
  }, 60_000);

  it('atomic: a pop that must first promote a delayed message, an extended lease and a remove all run on a full Redis', async () => {
    const client = connect(server.url);
    const queue = createQueue({ name: 'full-consumer', quorum: new IoredisStore(client), unackInterval: 0 });
    try {
      await admin.config('SET', 'maxmemory', '0');
      await queue.push([{ id: 'later', payload: 'p', timeout: 50 }, { id: 'gone', payload: 'p' }]);
      await admin.set('filler', 'f'.repeat(LIMIT * 2));
      await admin.config('SET', 'maxmemory', String(LIMIT));
      await expect(queue.push([{ id: 'new', payload: 'p' }])).rejects.toThrow(StoreFullError);
      expect(await queue.remove('gone')).toBe(true);
      await new Promise((resolve) => setTimeout(resolve, 80));
      const [m] = await queue.pop(1);
      expect(m?.id).toBe('later');
      expect(await queue.setUnackTimeout('later', 60_000, (m as { token?: string }).token)).toBe(true);
      expect(await queue.ack('later', (m as { token?: string }).token)).toBe(true);
      expect(await queue.size()).toBe(0);
    } finally {
      await queue.close();
      client.disconnect();
    }
  }, 30_000);

  it('legacy (for study): a refused push fails with StoreFullError after writing the messages before it; claims are refused until memory is freed', async () => {
    const client = connect(server.url);
    const queue = createQueue({ name: 'full-legacy', mode: 'legacy', quorum: new IoredisStore(client), unackInterval: 0 });
    try {
      // room for about half a batch, whatever the server's own memory is now
      const limit = (await usedMemory(admin)) + 500_000;
      await admin.config('SET', 'maxmemory', String(limit));
      const { accepted, refusals } = await pushBatches(queue, 40);
      expect(refusals.length).toBeGreaterThan(0);
      for (const err of refusals) expect(err).toBeInstanceOf(StoreFullError);
      // a refused batch may leave part of itself behind: the queue holds at least what was acknowledged
      const size = await queue.size();
      expect(size).toBeGreaterThanOrEqual(accepted.length);
      // Dyno's claim starts with ZADD to the un-ack set, a memory-growing write: refused while full
      // a refused batch leaves its first messages written (more in the queue than was acknowledged)
      expect(size).toBeGreaterThan(accepted.length);
      // Dyno's claim starts with ZADD to the un-ack set, a memory-growing write: refused while Redis
      // stays over its limit (here another tenant's key holds it there), so nothing drains
      await admin.config('SET', 'maxmemory', '0');
      await admin.set('tenant', 't'.repeat(limit));
      await admin.config('SET', 'maxmemory', String(limit));
      await expect(queue.pop(1)).rejects.toThrow(StoreFullError);
      expect(await queue.size()).toBe(size);
      // freed (the tenant gone and the limit raised: at the limit itself a claim may be refused again),
      // the consumers take every acknowledged push
      await admin.del('tenant');
      await admin.config('SET', 'maxmemory', '0');
      const acked = await drain(queue);
      expect(acked).toEqual(expect.arrayContaining(accepted));
    } finally {
      await queue.close();
      client.disconnect();
    }
  }, 60_000);
});

describe.runIf(available)('what a full Redis did with a write it refused (noeviction)', () => {
  it('a write refused as out of memory was not applied — a ZADD, and a script at its first write — and the real twin scores it so (its probe: never applied)', async () => {
    // a server of its own: after the tests above, a server once pushed past its limit accepted a ZADD over it (not understood)
    const server = await startRedisServer({ args: ['--maxmemory-policy', 'noeviction'] });
    const admin = connect(server.url) as Redis;
    const client = connect(server.url);
    try {
      await admin.zadd('q', 1, 'm');
      await admin.hset('h', 'm', 'payload');
      // over the limit by another tenant's key, whatever the server's own memory is now
      const limit = await usedMemory(admin);
      await admin.set('tenant', 't'.repeat(1_000_000));
      await admin.config('SET', 'maxmemory', String(limit));
      const probe = new CallProbe();
      const store = probingStore(new IoredisStore(client, { evictionCheck: 'off' }), probe, false);
      await expect(store.zadd('q', [{ score: 2, member: 'refused' }])).rejects.toThrow(StoreFullError);
      expect(await admin.zscore('q', 'refused')).toBeNull();
      // Dyno's bulk pop reads, then ZADDs to the un-ack set (its first write): refused, it wrote nothing
      await expect(store.runScript(legacyBulkPopLocal, ['h', 'q', 'u'], ['1', '2', '1000', 'm'])).rejects.toThrow(StoreFullError);
      expect(await admin.zscore('q', 'm')).toBe('1');
      expect(await admin.exists('u')).toBe(0);
      expect(probe.mayHaveApplied).toBe(false);
    } finally {
      client.disconnect();
      admin.disconnect();
      await server.stop();
    }
  }, 20_000);
});

describe.runIf(available)('an eviction policy that can delete the queue (allkeys-lru)', () => {
  let server: RedisServer;
  beforeAll(async () => {
    server = await startRedisServer({ args: ['--maxmemory', '2mb', '--maxmemory-policy', 'allkeys-lru'] });
  }, 20_000);
  afterAll(async () => server?.stop());

  it('connect() + IoredisStore refuses it with EvictionPolicyError before writing anything', async () => {
    const client = connect(server.url);
    const queue = createQueue({ name: 'evicted', quorum: new IoredisStore(client), unackInterval: 0 });
    try {
      const err = await queue.push([{ id: 'a', payload: 'p' }]).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(EvictionPolicyError);
      expect((err as EvictionPolicyError).policy).toBe('allkeys-lru');
      // and stays refused
      await expect(queue.size()).rejects.toThrow(EvictionPolicyError);
      expect(await (client as Redis).dbsize()).toBe(0);
    } finally {
      await queue.close();
      client.disconnect();
    }
  });

  it("the opt-out { evictionCheck: 'off' } runs the queue, and the policy then loses acknowledged pushes silently", async () => {
    const client = connect(server.url);
    const queue = createQueue({ name: 'evicted-opt-out', quorum: new IoredisStore(client, { evictionCheck: 'off' }), unackInterval: 0 });
    try {
      // 6,000 pushes of 1 KB (6 MB) into a 2 MB Redis: none refused, most of them evicted
      const accepted: string[] = [];
      for (let b = 0; b < 60; b++) {
        accepted.push(...(await queue.push(Array.from({ length: 100 }, (_, i) => ({ id: `e-${b}-${i}`, payload: 'e'.repeat(1_000) })))));
      }
      expect(accepted).toHaveLength(6_000);
      const acked = await drain(queue);
      expect(acked.length).toBeLessThan(accepted.length);
    } finally {
      await queue.close();
      client.disconnect();
    }
  }, 30_000);

  it("{ evictionCheck: 'warn' } warns once and runs", async () => {
    const client = connect(server.url);
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(w.message);
    process.on('warning', onWarning);
    const queue = createQueue({ name: 'evicted-warn', quorum: new IoredisStore(client, { evictionCheck: 'warn' }), unackInterval: 0 });
    try {
      await queue.push([{ id: 'a', payload: 'p' }]);
      await queue.push([{ id: 'b', payload: 'p' }]);
      await new Promise((resolve) => setImmediate(resolve));
      expect(warnings.filter((w) => w.includes('allkeys-lru'))).toHaveLength(1);
    } finally {
      process.off('warning', onWarning);
      await queue.close();
      client.disconnect();
    }
  });
});
