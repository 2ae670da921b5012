/**
 * The worst Redis stall one queue call causes (not a test): `npx tsx bench/stalls.ts [N]`.
 *
 * Starts its own redis-server on a free loopback port and reads, from SLOWLOG (commands over 200 µs),
 * how long Redis spent executing each command a call sent: the longest is the time every other client
 * of that Redis waited. Scenarios (atomic mode, one shard):
 *   1. the first pop after N delayed messages fall due (N default 1,000,000);
 *   2. findStaleMessages with those N messages stored;
 *   3. the worst pathological predicate: `.-.-.-b` and `.-zzz` over 10,000 × 10 KB payloads;
 *   4. every call at the limits its options and arguments accept: a push of many small messages, a
 *      push of many large ones, one message of the largest payload, pop of the largest count, and
 *      one reaper pass at the largest reaperBatch with that many leases expired.
 * DYNOQ_SRC=<dir> runs the same scenarios against another checkout's `src` (the figures before the
 * change: `git worktree add .before 11ee1eb`, then DYNOQ_SRC=.before/src). STALLS_SKIP_PREDICATE=1 skips 3
 * (before the change, `.-.-.-b` does not end: over 10 minutes for one payload, per issue 15).
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Redis } from 'ioredis';

const N = Number(process.argv[2] ?? 1_000_000);
const src = resolve(process.env.DYNOQ_SRC ?? join(import.meta.dirname, '..', 'src'));
const dynoq = (await import(pathToFileURL(join(src, 'public', 'dynoq.ts')).href)) as typeof import('../src/public/dynoq.js');

function freePort(): Promise<number> {
  return new Promise((res) => {
    const srv = createServer();
    srv.listen(0, '127.0.0.1', () => {
      const a = srv.address();
      srv.close(() => res(typeof a === 'object' && a ? a.port : 0));
    });
  });
}

const port = await freePort();
const dir = mkdtempSync(join(tmpdir(), 'dynoq-stalls-'));
const server = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', '', '--appendonly', 'no', '--slowlog-max-len', '1000000'], { stdio: 'ignore' });
const admin = new Redis({ host: '127.0.0.1', port, retryStrategy: (n) => (n > 50 ? null : 100) });
admin.on('error', () => {});
await admin.ping();

/** Runs `fn` with SLOWLOG recording every command; returns the longest command (ms), its name, the count, and wall time. */
async function stall(
  fn: () => Promise<unknown>,
): Promise<{ worstMs: number; command: string; commands: number; wallMs: number; result: unknown; p99: number; over10: number }> {
  await admin.config('SET', 'slowlog-log-slower-than', '200');
  await admin.slowlog('RESET');
  const t = performance.now();
  let result: unknown;
  try {
    result = await fn();
  } catch (err) {
    result = err instanceof Error ? `${err.name}: ${err.message.slice(0, 80)}` : err;
  }
  const wallMs = performance.now() - t;
  await admin.config('SET', 'slowlog-log-slower-than', '10000000');
  const entries = (await admin.slowlog('GET', 1_000_000)) as [number, number, number, string[]][];
  const ours = entries.filter((e) => !['slowlog', 'config'].includes(String(e[3][0]).toLowerCase()));
  const worst = ours.reduce((w, e) => (e[2] > w[2] ? e : w), ours[0] ?? [0, 0, 0, ['-']]);
  const scripts = ours.filter((e) => /^eval/i.test(String(e[3][0]))).map((e) => e[2]).sort((a, b) => a - b);
  const p99 = scripts.length ? scripts[Math.min(scripts.length - 1, Math.floor(scripts.length * 0.99))]! / 1000 : 0;
  const over10 = scripts.filter((d) => d > 10_000).length;
  return { worstMs: worst[2] / 1000, command: String(worst[3][0]), commands: ours.length, wallMs, result, p99, over10 };
}

const client = dynoq.connect(`redis://127.0.0.1:${port}`, { commandTimeout: 600_000 });
const store = new dynoq.IoredisStore(client);
let now = 1_700_000_000_000;
const clock = { now: () => now };
const timers = { setTimeout: (f: () => void, ms: number) => setTimeout(f, ms), clearTimeout: (h: unknown) => clearTimeout(h as NodeJS.Timeout) };
const line = (what: string, r: Awaited<ReturnType<typeof stall>>) =>
  console.log(`${what}: worst stall ${r.worstMs.toFixed(1)} ms (${r.command}); commands over 200 µs: ${r.commands}, scripts p99 ${r.p99.toFixed(1)} ms, ${r.over10} over 10 ms; call took ${(r.wallMs / 1000).toFixed(2)} s → ${JSON.stringify(r.result)?.slice(0, 100)}`);

console.log(`queue code: ${src}; N = ${N.toLocaleString('en')}`);
{
  const queue = dynoq.createQueue({ name: 'stalls', quorum: store, clock, timers, unackInterval: 0 } as never);
  const t = performance.now();
  const BATCH = 1_000;
  for (let i = 0; i < N; i += BATCH) {
    const batch = Array.from({ length: Math.min(BATCH, N - i) }, (_, j) => ({ id: `m${i + j}`, payload: `payload ${i + j}`, timeout: 60_000 + ((i + j) % 1000), priority: (i + j) % 100 }));
    await queue.push(batch);
  }
  console.log(`pushed ${N.toLocaleString('en')} delayed messages in ${((performance.now() - t) / 1000).toFixed(1)} s`);
  now += 120_000; // every message is now due
  line(`1. first pop after ${N.toLocaleString('en')} fell due`, await stall(async () => (await queue.pop(1)).map((m) => m.id)));
  line(`   second pop`, await stall(async () => (await queue.pop(1)).map((m) => m.id)));
  line(`2. findStaleMessages at ${N.toLocaleString('en')}`, await stall(async () => (await queue.findStaleMessages()).length));
  await queue.clear();
  await queue.close();
}
if (process.env.STALLS_SKIP_PREDICATE !== '1') {
  const queue = dynoq.createQueue({ name: 'predicates', quorum: store, clock, timers, unackInterval: 0 } as never);
  for (let i = 0; i < 10_000; i += 500) {
    await queue.push(Array.from({ length: 500 }, (_, j) => ({ id: `p${i + j}`, payload: 'a'.repeat(10_000) })));
  }
  for (const pattern of ['.-.-.-b', '.-zzz', 'zzz']) {
    line(`3. containsPredicate(${JSON.stringify(pattern)}) over 10,000 × 10 KB`, await stall(() => queue.containsPredicate(pattern)));
  }
  await queue.close();
}
if (process.env.STALLS_SKIP_LIMITS !== '1') {
  // The largest arguments and options the queue accepts (a checkout without limits.ts: the old ones).
  const limitsFile = join(src, 'queue', 'limits.ts');
  const limits = existsSync(limitsFile) ? ((await import(pathToFileURL(limitsFile).href)) as { MAX_PAYLOAD_BYTES_LIMIT: number }) : undefined;
  const maxPop = 10_000;
  const maxReaper = 100_000;
  const maxPayload = limits?.MAX_PAYLOAD_BYTES_LIMIT ?? 64 * 1024 * 1024;
  const manySmall = Number(process.env.STALLS_PUSH_MANY ?? 20_000);
  console.log(`limits: ${JSON.stringify({ maxPop, maxReaper, maxPayload, manySmall })}`);
  const queue = dynoq.createQueue({ name: 'limits', quorum: store, clock, timers, unackInterval: 0, reaperBatch: maxReaper, maxPayloadBytes: maxPayload, unackTimeout: 1_000 } as never);
  const small = (n: number, tag: string) => Array.from({ length: n }, (_, i) => ({ id: `${tag}${i}`, payload: `payload ${i}` }));
  line(`4. push of ${manySmall.toLocaleString('en')} small messages`, await stall(() => queue.push(small(manySmall, 's')).then((ids) => ids.length)));
  await queue.clear();
  const big = 'b'.repeat(512 * 1024);
  line(`   push of 200 × 512 KiB`, await stall(() => queue.push(Array.from({ length: 200 }, (_, i) => ({ id: `b${i}`, payload: big }))).then((ids) => ids.length)));
  await queue.clear();
  line(`   push of one ${(maxPayload / 1024 / 1024).toFixed(1)} MiB message (maxPayloadBytes at its limit)`, await stall(() => queue.push([{ id: 'huge', payload: 'h'.repeat(maxPayload) }]).then((ids) => ids.length)));
  await queue.clear();
  for (let i = 0; i < Math.max(maxPop, maxReaper); i += 1_000) await queue.push(small(Math.min(1_000, Math.max(maxPop, maxReaper) - i), `p${i}-`));
  line(`   pop(${maxPop.toLocaleString('en')})`, await stall(async () => (await queue.pop(maxPop)).length));
  for (let left = maxReaper - maxPop; left > 0; left -= Math.min(left, maxPop)) await queue.pop(Math.min(left, maxPop));
  now += 2_000; // every lease has expired
  line(`   processUnacks with reaperBatch ${maxReaper.toLocaleString('en')}, as many expired`, await stall(() => queue.processUnacks()));
  await queue.clear();
  await queue.close();
}
client.disconnect();
admin.disconnect();
server.kill('SIGKILL');
rmSync(dir, { recursive: true, force: true });
