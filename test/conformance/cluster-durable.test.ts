import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createQueue } from '../../src/public/dynoq.js';
import { DurabilityError } from '../../src/queue/errors.js';
import { QueueKeys } from '../../src/queue/keys.js';
import { connect } from '../../src/store/connect.js';
import { IoredisStore } from '../../src/store/ioredis-store.js';
import { redisCliAvailable, slotOwner, startRedisCluster, type RedisCluster } from '../support/redis-cluster.js';
import { redisRequired, redisServerBinary } from '../support/redis-server.js';

// Issue 15, item 4: durable means durable on Redis Cluster. WAIT has no key, so a Cluster client used
// to send it to any master: with the queue master's replica stalled, pushes were "confirmed" by another
// master's replicas and lost at failover. Now the script and its WAIT go down one pipeline to the node
// that ran the write. On a local 3-master Cluster with one replica each: confirmed pushes (replica
// healthy) and refused ones (replica SIGSTOPped), then the master is killed and its stale replica takes
// over; every confirmed push must be there.

const available = redisServerBinary() !== null && redisCliAvailable();
if (!available && redisRequired) throw new Error('REQUIRE_REDIS=1 but redis-server or redis-cli is not installed');

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe.runIf(available)('durable writes on a local Redis Cluster with replicas', () => {
  let cluster: RedisCluster;
  const admins: Redis[] = [];
  const admin = (port: number) => {
    const c = new Redis({ host: '127.0.0.1', port, lazyConnect: false, maxRetriesPerRequest: 1, retryStrategy: () => null });
    c.on('error', () => {});
    admins.push(c);
    return c;
  };
  beforeAll(async () => {
    cluster = await startRedisCluster(3, 1);
  }, 90_000);
  afterAll(async () => {
    for (const c of admins) c.disconnect();
    for (const s of cluster?.servers ?? []) s.process.kill('SIGCONT');
    await cluster?.stop();
  });

  it('every confirmed durable push survives the failover of its master to a replica that was stalled', async () => {
    const name = 'durable';
    const keys = new QueueKeys('dynoq', name, true);
    const owner = await slotOwner(cluster, keys.message, 1);
    const masterServer = owner.master;
    const replicaServer = owner.replicas[0]!;
    const port = (server: { port: number }) => server.port;
    const master = masterServer;
    const replica = replicaServer;
    // wait until the replica is in sync
    const masterAdmin = admin(port(master));
    for (let i = 0; i < 200 && !String(await masterAdmin.info('replication')).includes('state=online'); i++) await sleep(50);

    const client = connect(undefined, { cluster: cluster.ports.map((p) => ({ host: '127.0.0.1', port: p })), commandTimeout: 20_000 });
    const queue = createQueue({ name, quorum: new IoredisStore(client), hashTag: true, unackInterval: 0, durable: { replicas: 1, timeoutMs: 300 } });
    const confirmed: string[] = [];
    const refused: string[] = [];
    const push = async (id: string) => {
      try {
        await queue.push([{ id, payload: `p-${id}` }]);
        confirmed.push(id);
      } catch (err) {
        expect(err).toBeInstanceOf(DurabilityError);
        refused.push(id);
      }
    };
    for (let i = 0; i < 10; i++) await push(`healthy${i}`);
    expect(confirmed).toHaveLength(10);

    replicaServer.process.kill('SIGSTOP');
    for (let i = 0; i < 10; i++) await push(`stalled${i}`);
    // the replica of the master that ran the write is stopped: nobody may confirm these
    expect(refused).toEqual(Array.from({ length: 10 }, (_, i) => `stalled${i}`));
    expect(confirmed).toHaveLength(10);

    // failover: the master dies; its replica, stale, takes over
    await masterServer.kill();
    replicaServer.process.kill('SIGCONT');
    const promoted = admin(port(replica));
    for (let i = 0; i < 100; i++) {
      try {
        await promoted.cluster('FAILOVER', 'TAKEOVER');
        break;
      } catch {
        await sleep(100);
      }
    }
    for (let i = 0; i < 200 && !String(await promoted.info('replication')).includes('role:master'); i++) await sleep(50);
    expect(String(await promoted.info('replication'))).toContain('role:master');
    const survivors = (await promoted.hkeys(keys.message)).sort();
    for (const id of confirmed) expect(survivors, `confirmed push ${id} survived`).toContain(id);
    console.log(`confirmed ${confirmed.length}, refused ${refused.length}, on the new master ${survivors.length}`);
    await queue.close();
    client.disconnect();
  }, 120_000);
});
