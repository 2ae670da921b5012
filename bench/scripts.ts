/**
 * Script calls per second on the in-process keyspace, twin versus exact Lua (npm run bench:scripts):
 * rounds of push (1 message), pop (1) and ack, the simulator's commonest calls, on one keyspace.
 * The calls are built by `QueueScripts`, the one place that lays out KEYS and ARGV, so that this
 * benchmark cannot drift from the scripts' argument layout (it did once, and crashed).
 */
import { QueueKeys } from '../src/queue/keys.js';
import { QueueScripts, type ScriptCall } from '../src/queue/scripts/queue-scripts.js';
import { Keyspace, type ScriptMode } from '../src/redis/keyspace.js';
import { storedMessageJson } from '../src/queue/stored-message.js';

const NOW = 1_700_000_000_000;
const scripts = new QueueScripts(new QueueKeys('dynoq', 'bench', false), ['a'], 'a', () => [String(NOW), '0']);
const run = (ks: Keyspace, c: ScriptCall) => ks.runScript(c.script, c.keys, c.args);

function rounds(mode: ScriptMode, n: number): number {
  const ks = new Keyspace(() => NOW, mode);
  const start = performance.now();
  for (let i = 0; i < n; i++) {
    const id = `m${i}`;
    const json = storedMessageJson({ id, payload: 'p', priority: 0, timeout: 0, shard: 'a' });
    run(ks, scripts.push([{ shardIndex: 1, id, priority: 0, timeout: 0, json, ord: i }], false));
    const popped = run(ks, scripts.pop(1, 30_000, `token-${i}`)) as string[];
    if (popped[0] !== id) throw new Error(`round ${i}: popped ${JSON.stringify(popped)}, expected ${id}`);
    if (run(ks, scripts.ack(id, `token-${i}`)) !== 1) throw new Error(`round ${i}: ack of ${id} refused`);
  }
  return (3 * n) / ((performance.now() - start) / 1000);
}

for (const mode of ['twin', 'lua'] as const) rounds(mode, 500); // warm-up
const best: Record<string, number> = {};
for (const mode of ['twin', 'lua'] as const) {
  const runs = [1, 2, 3].map(() => rounds(mode, mode === 'twin' ? 20_000 : 3_000));
  best[mode] = Math.max(...runs);
  console.log(`${mode}: ${Math.round(best[mode]).toLocaleString('en')} script calls/s (best of 3) = ${(1e6 / best[mode]).toFixed(1)} µs per call`);
}
console.log(`twin / lua: ×${(best.twin! / best.lua!).toFixed(0)}`);
