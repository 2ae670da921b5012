import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { createQueue, type DynoQueue } from '../../src/public/dynoq.js';
import { connect } from '../../src/store/connect.js';
import { IoredisStore } from '../../src/store/ioredis-store.js';
import { startSentinelGroup, type SentinelGroup } from '../support/redis-sentinel.js';
import { redisRequired, redisServerBinary, startRedisServer, type RedisServer } from '../support/redis-server.js';

const available = redisServerBinary() !== null;
if (!available && redisRequired) throw new Error('REQUIRE_REDIS=1 but redis-server is not installed');

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until(check: () => Promise<boolean>, what: string, ms = 30_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check().catch(() => false))) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await pause(100);
  }
}

/**
 * The README's consumer loop, entered once: `for await (const m of queue.consume(...))`, handle, ack.
 * An ack that fails (the store is down) leaves the lease to end; the message comes back. Returns how
 * the loop ended, the ids handled and acked, and the errors the hook saw.
 */
function readmeLoop(queue: DynoQueue) {
  const handled = new Set<string>();
  const acked = new Set<string>();
  const errors: string[] = [];
  const ended = (async () => {
    for await (const m of queue.consume({ batch: 1, wait: 1_000, onError: (err) => errors.push(String(err)) })) {
      handled.add(m.id);
      if (await queue.ack(m.id, m.token).catch(() => false)) acked.add(m.id);
    }
    return 'ended when the queue closed';
  })().catch((err: unknown) => `threw: ${String(err)}`);
  return { handled, acked, errors, ended };
}

describe.runIf(available)('a README consume() loop outlives the fault', () => {
  const servers: RedisServer[] = [];
  const groups: SentinelGroup[] = [];
  const clients: Redis[] = [];
  afterAll(async () => {
    for (const c of clients) c.disconnect();
    for (const g of groups) await g.stop();
    for (const s of servers) await s.stop();
  });

  it('redis-server SIGKILLed and restarted from its AOF: the loop resumes by itself, nothing acknowledged is lost, its errors reach the hook', async () => {
    const aof = ['--appendonly', 'yes', '--appendfsync', 'always'];
    let server = await startRedisServer({ args: aof });
    servers.push(server);
    const client = connect(`redis://127.0.0.1:${server.port}`, { commandTimeout: 2_000 }) as Redis;
    client.on('error', () => undefined);
    const producerClient = connect(`redis://127.0.0.1:${server.port}`, { commandTimeout: 2_000 }) as Redis;
    producerClient.on('error', () => undefined);
    clients.push(client, producerClient);
    const queue = createQueue({ name: 'outlives', quorum: new IoredisStore(client), unackTimeout: 1_000, unackInterval: 200 });
    const producer = createQueue({ name: 'outlives', quorum: new IoredisStore(producerClient), unackInterval: 0 });
    const loop = readmeLoop(queue);

    // Pushes paced over the fault; each retried until acknowledged.
    const pushed = new Set<string>();
    const produce = (async () => {
      for (let i = 0; i < 120; i++) {
        const id = `m${i}`;
        while (!pushed.has(id)) {
          if (await producer.push([{ id, payload: `p${i}` }]).then(() => true, () => false)) pushed.add(id);
          else await pause(50);
        }
        await pause(15);
      }
    })();
    await until(async () => loop.acked.size >= 10, 'the first acks');
    await server.kill();
    await pause(1_500);
    server = await startRedisServer({ args: aof, dir: server.dir, port: server.port });
    servers.push(server);
    await produce;
    // Nothing re-enters the loop: it resumed by itself and drains every acknowledged push.
    await until(async () => (await producer.size()) === 0 && (await producer.shardSizes()).a!.uacked === 0, 'the queue to drain', 40_000);
    expect([...pushed].filter((id) => !loop.handled.has(id))).toEqual([]);
    expect(loop.errors.length).toBeGreaterThan(0);
    await queue.close();
    expect(await loop.ended).toBe('ended when the queue closed');
    await producer.close();
    console.info(`AOF restart: ${pushed.size} pushes acknowledged, all handled; ${loop.errors.length} errors reached onError (first: ${loop.errors[0]})`);
  }, 90_000);

  it('a Sentinel failover: the same loop follows the promoted replica by itself and drains every confirmed push', async () => {
    const group = await startSentinelGroup(until);
    groups.push(group);
    const { primary, replica, sentinel } = group;
    const client = connect(sentinel.url, { commandTimeout: 2_000 }) as Redis;
    client.on('error', () => undefined);
    clients.push(client);
    const durable = createQueue({ name: 'failover', quorum: new IoredisStore(client), durable: { replicas: 1, timeoutMs: 500 }, unackInterval: 0 });
    const plain = createQueue({ name: 'failover', quorum: new IoredisStore(client), unackInterval: 0 });
    const queue = createQueue({ name: 'failover', quorum: new IoredisStore(client), unackTimeout: 1_000, unackInterval: 200 });
    // Confirmed by the replica before the failover, delayed so that the loop is still busy when it strikes.
    const before = Array.from({ length: 30 }, (_, i) => ({ id: `b${i}`, payload: 'x', timeout: i * 100 }));
    await durable.push(before);
    const loop = readmeLoop(queue);
    await until(async () => loop.acked.size >= 3, 'the first acks');
    await primary.kill();
    await until(async () => (await group.primaryPort()) === replica.port, 'Sentinel to promote the replica');
    // After the failover the new primary has no replica: later pushes are plain.
    const after = Array.from({ length: 10 }, (_, i) => ({ id: `a${i}`, payload: 'y' }));
    await until(async () => (await plain.push(after)).length === after.length, 'a push to the new primary');
    await until(async () => (await plain.size()) === 0 && (await plain.shardSizes()).a!.uacked === 0, 'the queue to drain', 40_000);
    expect([...before, ...after].map((m) => m.id).filter((id) => !loop.handled.has(id))).toEqual([]);
    await queue.close();
    expect(await loop.ended).toBe('ended when the queue closed');
    await durable.close();
    await plain.close();
    console.info(`Sentinel failover: ${loop.handled.size} handled by one loop; ${loop.errors.length} errors reached onError (first: ${loop.errors[0]})`);
  }, 120_000);
});
