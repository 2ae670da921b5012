import type { Cluster } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createQueue } from '../../src/queue/create-queue.js';
import { connect } from '../../src/store/connect.js';
import { EvictionPolicyError } from '../../src/store/errors.js';
import { IoredisStore } from '../../src/store/ioredis-store.js';
import { FakeTime } from '../support/fake-time.js';
import { redisCliAvailable, startRedisCluster, type RedisCluster } from '../support/redis-cluster.js';
import { redisRequired, redisServerBinary } from '../support/redis-server.js';

const available = redisServerBinary() !== null && redisCliAvailable();
if (!available && redisRequired) throw new Error('REQUIRE_REDIS=1 but redis-server / redis-cli are not installed');

describe.runIf(available)('Redis Cluster: why the hash tag', () => {
  let cluster: RedisCluster;
  let client: Cluster;
  beforeAll(async () => {
    cluster = await startRedisCluster(3);
    client = connect(undefined, { cluster: cluster.ports.map((port) => ({ host: '127.0.0.1', port })), commandTimeout: 20_000 }) as Cluster;
  }, 60_000);
  afterAll(async () => {
    client?.disconnect();
    await cluster?.stop();
  });

  const make = (hashTag: boolean) => {
    const time = new FakeTime();
    return createQueue({
      name: `tagged-${hashTag}`,
      quorum: new IoredisStore(client),
      shards: { allShards: ['a', 'b', 'c'], currentShard: 'a' },
      clock: time,
      timers: time,
      unackInterval: 0,
      hashTag,
    });
  };

  it('without a hash tag the multi-key scripts are refused (CROSSSLOT); with it the queue works', async () => {
    await expect(make(false).push([{ id: 'x', payload: 'p' }])).rejects.toThrow(/CROSSSLOT|same slot/);
    const tagged = make(true);
    await tagged.push([{ id: 'x', payload: 'p' }, { id: 'y', payload: 'q' }]);
    expect(await tagged.size()).toBe(2);
    const slots = new Set(
      await Promise.all(['dynoq.QUEUE.{tagged-true}.a', 'dynoq.READY.{tagged-true}.b', 'dynoq.MESSAGE.{tagged-true}'].map((k) => client.cluster('KEYSLOT', k))),
    );
    expect(slots.size).toBe(1);
  });
});

describe.runIf(available)('Redis Cluster: the eviction policy of every master', () => {
  let cluster: RedisCluster;
  beforeAll(async () => {
    cluster = await startRedisCluster(3);
  }, 60_000);
  afterAll(async () => cluster?.stop());

  it('one master with allkeys-lru among three refuses the store: every master is read, and the error names that one', async () => {
    const last = cluster.ports[cluster.ports.length - 1]!;
    const admin = connect(`redis://127.0.0.1:${last}`);
    await admin.config('SET', 'maxmemory-policy', 'allkeys-lru');
    admin.disconnect();
    const client = connect(undefined, { cluster: cluster.ports.map((port) => ({ host: '127.0.0.1', port })), commandTimeout: 20_000 }) as Cluster;
    try {
      const time = new FakeTime();
      const queue = createQueue({ name: 'policy', quorum: new IoredisStore(client), clock: time, timers: time, unackInterval: 0, hashTag: true });
      const err = await queue.push([{ id: 'x', payload: 'p' }]).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(EvictionPolicyError);
      expect((err as EvictionPolicyError).server).toBe(`127.0.0.1:${last}`);
      await queue.close();
    } finally {
      client.disconnect();
    }
  }, 60_000);
});
