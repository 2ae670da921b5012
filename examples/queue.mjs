// Push, pop and ack one message through the installed package, then exit on its own.
// Run: REDIS_URL=redis://127.0.0.1:6379 node examples/queue.mjs
import { connect, createQueue, IoredisStore } from 'dynoq';

const client = connect(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
const queue = createQueue({ name: 'example', quorum: new IoredisStore(client) });
try {
  await queue.push([{ id: 'order-42', payload: JSON.stringify({ total: 12 }) }]);
  const [m] = await queue.pop(1, { wait: 2_000 });
  if (!m) throw new Error('nothing delivered');
  const acked = await queue.ack(m.id, m.token);
  console.log(JSON.stringify({ id: m.id, payload: m.payload, acked, size: await queue.size() }));
} finally {
  await queue.close();
  await client.quit();
}
