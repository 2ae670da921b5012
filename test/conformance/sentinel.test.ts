import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { createQueue, DurabilityError } from '../../src/public/dynoq.js';
import { connect } from '../../src/store/connect.js';
import { IoredisStore } from '../../src/store/ioredis-store.js';
import { startSentinelGroup, type SentinelGroup } from '../support/redis-sentinel.js';
import { redisRequired, redisServerBinary } from '../support/redis-server.js';

const available = redisServerBinary() !== null;
if (!available && redisRequired) throw new Error('REQUIRE_REDIS=1 but redis-server is not installed');

async function until<T>(check: () => Promise<T | undefined>, what: string, ms = 30_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await check().catch(() => undefined);
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * A real Sentinel failover: the primary is killed (SIGKILL) while messages are queued and leased;
 * Sentinel promotes the replica, the client `connect()` built from a redis-sentinel:// URL follows it,
 * and the queue delivers every durably confirmed push, re-delivering the leased ones after their lease.
 */
describe.runIf(available)('a real Sentinel failover (primary + replica + sentinel on loopback)', () => {
  const groups: SentinelGroup[] = [];
  const clients: Redis[] = [];
  afterAll(async () => {
    for (const c of clients) c.disconnect();
    for (const g of groups) await g.stop();
  });

  it('every durably confirmed push is delivered after the failover, leased ones after their lease; durable writes then fail loudly (no replica left)', async () => {
    const group = await startSentinelGroup((check, what) => until(async () => ((await check()) ? true : undefined), what));
    groups.push(group);
    const { primary, replica, sentinel } = group;
    const client = connect(sentinel.url, { commandTimeout: 3_000 }) as Redis;
    client.on('error', () => undefined);
    clients.push(client);
    // Pushes wait for the replica (durable); the consumer's pops and acks do not (after the failover
    // no replica is left, and a durable pop would lease a message it cannot confirm).
    const producer = createQueue({ name: 'sentinel', quorum: new IoredisStore(client), durable: { replicas: 1, timeoutMs: 500 }, unackInterval: 0 });
    const queue = createQueue({ name: 'sentinel', quorum: new IoredisStore(client), unackTimeout: 1_500, unackInterval: 200 });
    const ids = Array.from({ length: 40 }, (_, i) => `m${i}`);
    expect(await producer.push(ids.map((id) => ({ id, payload: `p-${id}` })))).toHaveLength(40);
    const leased = await queue.pop(10);
    expect(leased).toHaveLength(10);

    await primary.kill();
    const promoted = await until(async () => {
      const port = await group.primaryPort();
      return port === replica.port ? port : undefined;
    }, 'Sentinel to promote the replica');
    expect(Number(promoted)).toBe(replica.port);

    // The leased ten come back after their lease (the reaper runs through the failover); the rest are queued.
    const delivered = new Set<string>();
    const errors: string[] = [];
    await until(
      async () => {
        const got = await queue.pop(10).catch((err: unknown) => {
          errors.push(String(err));
          throw err;
        });
        for (const m of got) {
          delivered.add(m.id);
          await queue.ack(m.id, m.token);
        }
        return delivered.size === ids.length ? true : undefined;
      },
      'every message delivered after the failover',
    ).catch((err: unknown) => {
      throw new Error(`${String(err)}: ${delivered.size} delivered; errors ${errors.slice(-3).join(' | ')}`);
    });
    expect([...delivered].sort()).toEqual([...ids].sort());
    expect(await queue.size()).toBe(0);

    // The new primary has no replica: a durable push is applied but cannot be confirmed.
    await expect(producer.push([{ id: 'after', payload: 'p' }])).rejects.toBeInstanceOf(DurabilityError);
    await producer.close();
    await queue.close();
  }, 90_000);
});
