import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createQueue } from '../../src/public/dynoq.js';
import { QueueKeys } from '../../src/queue/keys.js';
import { connect } from '../../src/store/connect.js';
import { IoredisStore } from '../../src/store/ioredis-store.js';
import { redisCliAvailable, slotOwner, startRedisCluster, type RedisCluster } from '../support/redis-cluster.js';
import { redisRequired, redisServerBinary } from '../support/redis-server.js';

// Durable pushes through a real Cluster failover: the queue's master is SIGKILLed, the Cluster
// promotes one of its two replicas (the other follows it). Pushes fail while no master serves the
// slot, and then resume: after the promotion no `MOVED` reaches the caller (the script's redirect is
// followed after a slot refresh, and connect() re-reads the slot map every second).

const available = redisServerBinary() !== null && redisCliAvailable();
if (!available && redisRequired) throw new Error('REQUIRE_REDIS=1 but redis-server or redis-cli is not installed');

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe.runIf(available)('durable pushes through a real Redis Cluster failover', () => {
  let cluster: RedisCluster;
  beforeAll(async () => {
    cluster = await startRedisCluster(3, 2);
  }, 120_000);
  afterAll(async () => {
    await cluster?.stop();
  });

  it('pushes resume after the promotion with no MOVED reaching the caller; every confirmed push is on the new master', async () => {
    const name = 'failover';
    const keys = new QueueKeys('dynoq', name, true);
    const { master, replicas } = await slotOwner(cluster, keys.message, 2);
    expect(replicas).toHaveLength(2);
    const client = connect(undefined, { cluster: cluster.ports.map((port) => ({ host: '127.0.0.1', port })), commandTimeout: 2_000 });
    client.on('error', () => undefined);
    const queue = createQueue({ name, quorum: new IoredisStore(client), hashTag: true, unackInterval: 0, durable: { replicas: 1, timeoutMs: 500 } });
    const confirmed: string[] = [];
    const failures: { at: number; error: string }[] = [];
    let stop = false;
    const pushing = (async () => {
      for (let i = 0; !stop; i++) {
        try {
          await queue.push([{ id: `m${i}`, payload: 'p' }]);
          confirmed.push(`m${i}`);
        } catch (err) {
          failures.push({ at: Date.now(), error: String(err) });
        }
        await sleep(10);
      }
    })();
    while (confirmed.length < 20) await sleep(20);
    await master.kill();
    const killedAt = Date.now();
    // the Cluster's own failover: a replica is promoted once the master is seen failing (node timeout 5 s)
    const admins = replicas.map((r) => {
      const c = new Redis({ host: '127.0.0.1', port: r.port, maxRetriesPerRequest: 1 });
      c.on('error', () => undefined);
      return c;
    });
    let promotedAt = 0;
    while (!promotedAt && Date.now() - killedAt < 60_000) {
      for (const a of admins) if (String(await a.info('replication').catch(() => '')).includes('role:master')) promotedAt = Date.now();
      await sleep(50);
    }
    expect(promotedAt, 'a replica was promoted').toBeGreaterThan(0);
    const confirmedAtPromotion = confirmed.length;
    await sleep(8_000);
    stop = true;
    await pushing;

    const after = failures.filter((f) => f.at > promotedAt);
    const lastFailure = Math.max(0, ...failures.map((f) => f.at));
    console.info(
      `Cluster failover: promoted ${promotedAt - killedAt} ms after the kill; ${failures.length} failed pushes (${after.length} after the promotion, the last ${lastFailure ? lastFailure - promotedAt : 0} ms after it); ${failures.filter((f) => /MOVED|ASK/.test(f.error)).length} MOVED/ASK; first: ${failures[0]?.error}`,
    );
    expect(after.filter((f) => /\b(MOVED|ASK)\b/.test(f.error))).toEqual([]);
    // pushes resumed: confirmed ones after the promotion, and no failure in the last seconds
    expect(confirmed.length).toBeGreaterThan(confirmedAtPromotion + 50);
    expect(lastFailure - promotedAt).toBeLessThan(3_000);
    const promoted = admins.find((_, i) => i >= 0)!;
    const newMaster = (await Promise.all(admins.map(async (a) => (String(await a.info('replication')).includes('role:master') ? a : null)))).find((a) => a !== null) ?? promoted;
    const stored = new Set(await newMaster.hkeys(keys.message));
    expect(confirmed.filter((id) => !stored.has(id))).toEqual([]);
    for (const a of admins) a.disconnect();
    await queue.close();
    client.disconnect();
  }, 120_000);
});
