/**
 * dynoq (atomic, legacy) against BullMQ on the same redis-server, started here on a loopback port,
 * plus the raw EVALSHA ceiling from redis-benchmark. Repetitions alternate between the systems in
 * one run; the ratios are the result (absolute rates on a shared 2-core machine are noise).
 *
 *   npm run bench:queues      (BENCH_N=20000 BENCH_REPS=3 by default: runs long enough for steady state)
 *
 * For each end-to-end row it also prints where the time went: CPU per message in this (client)
 * process and in redis-server (from /proc), so that a ratio below target can be explained.
 *
 * BullMQ is installed by that script (npm install --no-save bullmq@^5) rather than listed in
 * package.json: its optional native helper (msgpackr-extract) leaves a lock file that `npm ci` on
 * npm 11 rejects as out of sync. For the same reason this file is outside the main type check.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { Queue, Worker } from 'bullmq';
import { Redis } from 'ioredis';
import { createQueue } from '../src/queue/create-queue.js';
import type { QueueMode } from '../src/queue/dyno-queue.js';
import { systemClock, systemTimers } from '../src/runtime/system-time.js';
import { safeRedisOptions } from '../src/store/connect.js';
import { IoredisStore } from '../src/store/ioredis-store.js';
import { atomicPush } from '../src/queue/scripts/index.js';
import { startRedisServer } from '../test/support/redis-server.js';

const N = Number(process.env.BENCH_N ?? 20_000);
const REPS = Number(process.env.BENCH_REPS ?? 3);

type System = 'dynoq-atomic' | 'dynoq-legacy' | 'bullmq';
const SYSTEMS: System[] = ['dynoq-atomic', 'dynoq-legacy', 'bullmq'];

const server = await startRedisServer();
const connection = { host: '127.0.0.1', port: server.port, maxRetriesPerRequest: null };
const admin = new Redis(connection);
let run = 0;

function dynoq(mode: QueueMode, name: string) {
  const client = new Redis({ ...safeRedisOptions(), host: '127.0.0.1', port: server.port });
  const queue = createQueue({ name, mode, quorum: new IoredisStore(client), clock: systemClock, timers: systemTimers, unackInterval: 0, unackTimeout: 60_000 });
  return { queue, close: async () => { await queue.close(); client.disconnect(); } };
}

const payload = JSON.stringify({ order: 42, items: ['a', 'b', 'c'] });

/** Messages per second for one push workload. */
async function pushRate(system: System, batch: number): Promise<number> {
  const name = `push${++run}`;
  const start = performance.now();
  if (system === 'bullmq') {
    const q = new Queue(name, { connection });
    for (let i = 0; i < N; i += batch) {
      if (batch === 1) await q.add('job', { payload }, { jobId: `m${i}` });
      else await q.addBulk(Array.from({ length: Math.min(batch, N - i) }, (_, j) => ({ name: 'job', data: { payload }, opts: { jobId: `m${i + j}` } })));
    }
    const rate = N / ((performance.now() - start) / 1000);
    await q.close();
    return rate;
  }
  const d = dynoq(system === 'dynoq-atomic' ? 'atomic' : 'legacy', name);
  for (let i = 0; i < N; i += batch) {
    await d.queue.push(Array.from({ length: Math.min(batch, N - i) }, (_, j) => ({ id: `m${i + j}`, payload })));
  }
  const rate = N / ((performance.now() - start) / 1000);
  await d.close();
  return rate;
}

/**
 * How a dynoq consumer loops: pop `batch` then ack each (`pop-ack`); ack one message and lease the
 * next in one ackAndPop call; or ack the whole batch and lease the next batch in one ackManyAndPop
 * call (`batched`: one call per batch).
 */
type ConsumerLoop = 'pop-ack' | 'ackAndPop' | 'batched';

/** CPU time (ms) redis-server has used so far, from /proc (null where there is none). */
function redisCpuMs(): number | null {
  const file = `/proc/${server.process.pid}/stat`;
  if (!existsSync(file)) return null;
  const fields = readFileSync(file, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10; // utime + stime, in 10 ms clock ticks
}

/** CPU per message (µs) of the last end-to-end drain: this client process, redis-server. */
const cpuPerMessage: Record<string, Record<System, [number, number][]>> = {};
let lastCpu: [number, number] = [Number.NaN, Number.NaN];

/** Measures `drain` (which returns how many messages it handled): rate, and CPU per message into lastCpu. */
async function measured(drain: () => Promise<number>): Promise<number> {
  const cpu0 = process.cpuUsage();
  const redis0 = redisCpuMs();
  const start = performance.now();
  const handled = await drain();
  const seconds = (performance.now() - start) / 1000;
  const cpu = process.cpuUsage(cpu0);
  const redis1 = redisCpuMs();
  lastCpu = [(cpu.user + cpu.system) / handled, redis0 === null || redis1 === null ? Number.NaN : ((redis1 - redis0) * 1000) / handled];
  return handled / seconds;
}

/** Push N, then drain with `consumers` concurrent consumers; messages per second. */
async function endToEnd(system: System, consumers: number, batch = 1, loop: ConsumerLoop = 'pop-ack'): Promise<number> {
  const name = `e2e${++run}`;
  if (system === 'bullmq') {
    const q = new Queue(name, { connection });
    for (let i = 0; i < N; i += 500) {
      await q.addBulk(Array.from({ length: Math.min(500, N - i) }, (_, j) => ({ name: 'job', data: { payload }, opts: { jobId: `m${i + j}`, removeOnComplete: true } })));
    }
    const rate = await measured(async () => {
      let done = 0;
      await new Promise<void>((resolve) => {
        const worker = new Worker(name, async () => undefined, { connection, concurrency: consumers, autorun: true });
        worker.on('completed', () => {
          if (++done === N) void worker.close().then(() => resolve());
        });
      });
      return N;
    });
    await q.close();
    return rate;
  }
  const mode = system === 'dynoq-atomic' ? 'atomic' : 'legacy';
  const producer = dynoq(mode, name);
  for (let i = 0; i < N; i += 500) await producer.queue.push(Array.from({ length: Math.min(500, N - i) }, (_, j) => ({ id: `m${i + j}`, payload })));
  const workers = Array.from({ length: consumers }, () => dynoq(mode, name));
  let acked = 0;
  const rate = await measured(async () => {
    await Promise.all(
      workers.map(async (w) => {
        if (loop === 'batched') {
          let got = await w.queue.pop(batch);
          while (got.length > 0) {
            const step = await w.queue.ackManyAndPop(got, batch);
            acked += step.acked.filter(Boolean).length;
            got = step.messages;
          }
          return;
        }
        if (loop === 'ackAndPop') {
          let [m] = await w.queue.pop(1);
          while (m) {
            const step = await w.queue.ackAndPop(m.id, m.token, 1);
            if (step.acked) acked++;
            m = step.messages[0];
          }
          return;
        }
        for (;;) {
          const got = await w.queue.pop(batch);
          if (got.length === 0) break;
          for (const m of got) if (await w.queue.ack(m.id, m.token)) acked++;
        }
      }),
    );
    return acked;
  });
  for (const w of [producer, ...workers]) await w.close();
  return rate;
}

/** Due → delivery lag (ms) at a steady 200 pushes/s with 100 ms delays and 4 consumers: p50, p99. */
async function deliveryLag(system: System): Promise<[number, number]> {
  const name = `lag${++run}`;
  const count = Math.min(N, 1_000);
  const due = new Map<string, number>();
  const lags: number[] = [];
  const delay = 100;
  if (system === 'bullmq') {
    const q = new Queue(name, { connection });
    const worker = new Worker(name, async (job) => { lags.push(Date.now() - due.get(job.id!)!); }, { connection, concurrency: 4 });
    for (let i = 0; i < count; i++) {
      due.set(`m${i}`, Date.now() + delay);
      await q.add('job', { payload }, { jobId: `m${i}`, delay, removeOnComplete: true });
      if (i % 10 === 9) await new Promise((r) => setTimeout(r, 50));
    }
    while (lags.length < count) await new Promise((r) => setTimeout(r, 20));
    await worker.close();
    await q.close();
  } else {
    const mode = system === 'dynoq-atomic' ? 'atomic' : 'legacy';
    const producer = dynoq(mode, name);
    const workers = Array.from({ length: 4 }, () => dynoq(mode, name));
    let stop = false;
    const consuming = workers.map(async (w) => {
      while (!stop) {
        const got = await w.queue.pop(1, { wait: 50 });
        for (const m of got) {
          lags.push(Date.now() - due.get(m.id)!);
          await w.queue.ack(m.id, m.token);
        }
      }
    });
    for (let i = 0; i < count; i++) {
      due.set(`m${i}`, Date.now() + delay);
      await producer.queue.push([{ id: `m${i}`, payload, timeout: delay }]);
      if (i % 10 === 9) await new Promise((r) => setTimeout(r, 50));
    }
    while (lags.length < count) await new Promise((r) => setTimeout(r, 20));
    stop = true;
    await Promise.all(consuming);
    for (const w of [producer, ...workers]) await w.close();
  }
  lags.sort((a, b) => a - b);
  return [lags[Math.floor(lags.length * 0.5)]!, lags[Math.floor(lags.length * 0.99)]!];
}

/** redis-benchmark running dynoq's push script by EVALSHA: the ceiling for one script call. */
function rawEvalshaCeiling(): number | null {
  const sha = createHash('sha1').update(atomicPush.lua).digest('hex');
  spawnSync('redis-cli', ['-p', String(server.port), 'SCRIPT', 'LOAD', atomicPush.lua]);
  const keys = ['c.MESSAGE.x', 'c.META.x', 'c.LEASE.x', 'c.COUNTERS.x', 'c.QUEUE.x.a', 'c.READY.x.a', 'c.UNACK.x.a'];
  // now, server_time, only_if_absent, settle ms; then shard, id, priority, delay, json, ord (as QueueScripts.push builds them)
  const args = ['1700000000000', '0', '0', '0', '1', 'id:__rand_int__', '0', '0', JSON.stringify({ payload }), '1'];
  const out = spawnSync('redis-benchmark', ['-p', String(server.port), '-n', String(N * 4), '-c', '8', '-r', '1000000', '-q', 'EVALSHA', sha, String(keys.length), ...keys, ...args], { encoding: 'utf8' });
  // A script error would be counted as a fast request: refuse a run that reports one.
  if (/ERR|error/i.test(`${out.stdout}${out.stderr}`)) throw new Error(`redis-benchmark EVALSHA failed: ${(out.stdout + out.stderr).slice(0, 300)}`);
  const m = /([\d.]+) requests per second/.exec(out.stdout ?? '');
  return m ? Number(m[1]) : null;
}

/** dynoq's own rate for the same script call: single-message pushes from 8 concurrent clients. */
async function dynoqScriptRate(): Promise<number> {
  const name = `calls${++run}`;
  const clients = Array.from({ length: 8 }, () => dynoq('atomic', name));
  const per = Math.floor((N * 2) / clients.length);
  const start = performance.now();
  await Promise.all(clients.map(async (c, k) => { for (let i = 0; i < per; i++) await c.queue.push([{ id: `c${k}-${i}`, payload }]); }));
  const rate = (per * clients.length) / ((performance.now() - start) / 1000);
  for (const c of clients) await c.close();
  return rate;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const results: Record<string, Record<System, number[]>> = {};
const record = (what: string, system: System, value: number) => {
  results[what] ??= { 'dynoq-atomic': [], 'dynoq-legacy': [], bullmq: [] };
  results[what]![system].push(value);
  if (what.startsWith('push→')) {
    cpuPerMessage[what] ??= { 'dynoq-atomic': [], 'dynoq-legacy': [], bullmq: [] };
    cpuPerMessage[what]![system].push(lastCpu);
  }
};

/** BullMQ's worker has one loop: its row is repeated beside each dynoq loop (its CPU is shown once). */
const bullmqAgain = (row: string) => {
  lastCpu = [Number.NaN, Number.NaN];
  return results[row]!.bullmq.at(-1)!;
};
const noRun = () => {
  lastCpu = [Number.NaN, Number.NaN];
  return Number.NaN;
};

for (let rep = 0; rep < REPS; rep++) {
  for (const system of rep % 2 === 0 ? SYSTEMS : [...SYSTEMS].reverse()) {
    record('push, one message per call (msg/s)', system, await pushRate(system, 1));
    record('push, batches of 100 (msg/s)', system, await pushRate(system, 100));
    record('push→pop→ack, 1 consumer (msg/s)', system, await endToEnd(system, 1));
    record('push→pop→ack, 8 consumers (msg/s)', system, await endToEnd(system, 8));
    // ackAndPop: one call per message, as BullMQ's worker (moveToFinished fetches the next job).
    record('push→ackAndPop, 1 consumer (msg/s)', system, system === 'bullmq' ? bullmqAgain('push→pop→ack, 1 consumer (msg/s)') : await endToEnd(system, 1, 1, 'ackAndPop'));
    record('push→ackAndPop, 8 consumers (msg/s)', system, system === 'bullmq' ? bullmqAgain('push→pop→ack, 8 consumers (msg/s)') : await endToEnd(system, 8, 1, 'ackAndPop'));
    // dynoq's own batching (pop 10, ack each); BullMQ's worker fetches one job per call either way.
    record('push→pop(10)→ack, 8 consumers (msg/s)', system, system === 'bullmq' ? noRun() : await endToEnd(system, 8, 10));
    // One call per batch of 10 (ackManyAndPop), against BullMQ's worker at the same concurrency.
    record('push→ackManyAndPop(10), 1 consumer (msg/s)', system, system === 'bullmq' ? bullmqAgain('push→pop→ack, 1 consumer (msg/s)') : await endToEnd(system, 1, 10, 'batched'));
    record('push→ackManyAndPop(10), 8 consumers (msg/s)', system, system === 'bullmq' ? bullmqAgain('push→pop→ack, 8 consumers (msg/s)') : await endToEnd(system, 8, 10, 'batched'));
    const [p50, p99] = await deliveryLag(system);
    record('delivery lag p50 (ms)', system, p50);
    record('delivery lag p99 (ms)', system, p99);
    await admin.flushall();
  }
}
const cpuCell = (xs: [number, number][]) => {
  if (xs.length === 0 || xs.every(([c]) => Number.isNaN(c))) return '—';
  const c = median(xs.map(([v]) => v));
  const r = median(xs.map(([, v]) => v));
  return `${c.toFixed(0)} / ${Number.isNaN(r) ? 'n/a' : r.toFixed(0)}`;
};
const ceiling = rawEvalshaCeiling();
const scriptRate = await dynoqScriptRate();

console.log(`dynoq vs BullMQ on one redis-server 7.0 (loopback), N=${N}, medians of ${REPS} alternating repetitions\n`);
console.log('| measurement | dynoq atomic | dynoq legacy | BullMQ | atomic / BullMQ |');
console.log('|---|---|---|---|---|');
for (const [what, by] of Object.entries(results)) {
  const a = median(by['dynoq-atomic']);
  const l = median(by['dynoq-legacy']);
  const b = median(by.bullmq);
  const ratio = Number.isNaN(b) ? '—' : `${(a / b).toFixed(2)}×`;
  console.log(`| ${what} | ${a.toFixed(0)} | ${l.toFixed(0)} | ${Number.isNaN(b) ? '—' : b.toFixed(0)} | ${ratio} |`);
}
console.log('\nWhere the time goes: CPU µs per message, client process / redis-server (medians; the client runs every consumer of the row):\n');
console.log('| end to end | dynoq atomic | dynoq legacy | BullMQ |');
console.log('|---|---|---|---|');
for (const [what, by] of Object.entries(cpuPerMessage)) {
  console.log(`| ${what.replace(' (msg/s)', '')} | ${cpuCell(by['dynoq-atomic'])} | ${cpuCell(by['dynoq-legacy'])} | ${cpuCell(by.bullmq)} |`);
}
console.log(`\nraw ceiling: redis-benchmark EVALSHA of dynoq's push script, 8 clients: ${ceiling?.toFixed(0) ?? 'n/a'} calls/s`);
console.log(`dynoq atomic push, one message per call, 8 concurrent clients: ${scriptRate.toFixed(0)} calls/s → ${ceiling ? ((scriptRate / ceiling) * 100).toFixed(0) : 'n/a'} % of the raw ceiling (target ≥ 50 %)`);
admin.disconnect();
await server.stop();
