/**
 * Script calls per second on the in-process keyspace, twin versus exact Lua (npx tsx bench/scripts.ts):
 * rounds of push (1 message), pop (1) and ack, the simulator's commonest calls, on one keyspace.
 */
import { atomicAck, atomicPop, atomicPush } from '../src/queue/scripts/index.js';
import { Keyspace, type ScriptMode } from '../src/redis/keyspace.js';

const head = ['m', 'meta', 'lease', 'counters'];
const shard = ['q:a', 'r:a', 'u:a'];

function rounds(mode: ScriptMode, n: number): number {
  const ks = new Keyspace(() => 1_700_000_000_000, mode);
  const start = performance.now();
  for (let i = 0; i < n; i++) {
    const id = `m${i}`;
    ks.runScript(atomicPush, [...head, ...shard], ['1700000000000', '0', '0', '1', id, '0', '0', `{"id":"${id}","payload":"p"}`]);
    const popped = ks.runScript(atomicPop, [...head, ...shard], ['1700000000000', '0', '1', '30000']) as string[];
    ks.runScript(atomicAck, ['m', 'meta', 'lease', 'u:a'], [id, popped[2]!]);
  }
  return (3 * n) / ((performance.now() - start) / 1000);
}

for (const mode of ['twin', 'lua'] as const) rounds(mode, 500); // warm-up
for (const mode of ['twin', 'lua'] as const) {
  const runs = [1, 2, 3].map(() => rounds(mode, mode === 'twin' ? 20_000 : 3_000));
  console.log(`${mode}: ${Math.round(Math.max(...runs)).toLocaleString('en')} script calls/s (best of 3)`);
}
