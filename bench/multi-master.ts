/**
 * One queue's throughput on 1 versus 3 masters of a local Redis Cluster (not a test):
 * `npx tsx bench/multi-master.ts [seconds] [loops]`.
 *
 * Starts a 3-master Cluster on loopback. "1 master": a plain queue with `hashTag: true` — every key
 * in one slot, so one master does all the work. "3 masters": createMultiQueue with three shards whose
 * hash tags fall in slots owned by three different masters. The same client work in both: `loops`
 * concurrent async loops in this one process, each pushing 10 messages, popping 10 and acking them,
 * for `seconds`; messages/s = acked messages / elapsed. Alternates the two, 3 rounds each.
 */
import { connect, createMultiQueue, createQueue, IoredisStore } from '../src/public/dynoq.js';
import type { DynoQueue } from '../src/queue/dyno-queue.js';
import { QueueKeys } from '../src/queue/keys.js';
import { clusterKeySlot } from '../test/support/key-slot.js';
import { startRedisCluster } from '../test/support/redis-cluster.js';

const seconds = Number(process.argv[2] ?? 5);
const loops = Number(process.argv[3] ?? 24);
const cluster = await startRedisCluster(3);
const client = connect(undefined, { cluster: cluster.ports.map((port) => ({ host: '127.0.0.1', port })), commandTimeout: 30_000 });
const store = new IoredisStore(client);
await client.cluster('SLOTS');

/** Shard names whose `{<name>:<shard>}` tags fall in each third of the slot space (redis-cli gives each master a third). */
function shardNames(name: string): string[] {
  const found: (string | undefined)[] = [undefined, undefined, undefined];
  for (let i = 0; found.includes(undefined); i++) {
    const shard = `s${i}`;
    const third = Math.min(2, Math.floor(clusterKeySlot(new QueueKeys('dynoq', `${name}:${shard}`, true).message) / 5462));
    found[third] ??= shard;
  }
  return found as string[];
}

async function run(queues: DynoQueue[]): Promise<number> {
  let acked = 0;
  let seq = 0;
  const end = performance.now() + seconds * 1000;
  const start = performance.now();
  await Promise.all(
    Array.from({ length: loops }, async (_, l) => {
      const q = queues[l % queues.length]!;
      while (performance.now() < end) {
        await q.push(Array.from({ length: 10 }, () => ({ id: `m${seq++}`, payload: 'x'.repeat(100) })));
        const got = await q.pop(10);
        const results = await q.ackMany(got);
        acked += results.filter(Boolean).length;
      }
    }),
  );
  return acked / ((performance.now() - start) / 1000);
}

const results: Record<string, number[]> = { '1 master': [], '3 masters': [] };
for (let round = 0; round < 3; round++) {
  {
    const q = createQueue({ name: `one${round}`, quorum: store, hashTag: true, unackInterval: 0 });
    results['1 master']!.push(await run([q]));
    await q.clear();
    await q.close();
  }
  {
    const name = `multi${round}`;
    const shards = shardNames(name);
    const queues = shards.map((current) =>
      createMultiQueue({ name, shards: shards.map((s) => ({ name: s, store })), currentShard: current, hashTag: true, unackInterval: 0 }),
    );
    results['3 masters']!.push(await run(queues));
    await queues[0]!.clear();
    for (const q of queues) await q.close();
  }
}
for (const [what, runs] of Object.entries(results)) {
  const sorted = [...runs].sort((a, b) => a - b);
  console.log(`${what}: median ${Math.round(sorted[1]!).toLocaleString('en')} messages/s (push+pop+ack; runs ${runs.map((r) => Math.round(r).toLocaleString('en')).join(', ')})`);
}
client.disconnect();
await cluster.stop();
