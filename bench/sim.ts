/**
 * Simulator benchmark (npm run bench:sim), not a test. Prints, from one run on this machine:
 * - the reference workload (3 zones, 6 consumers, 10,000 messages, replication lag, one node
 *   failover) on the simulator: kernel events per wall second, simulated seconds per wall second;
 * - an hour of sparse traffic on the simulator: simulated seconds per wall second;
 * - the same queue workload (3 producers, 6 consumers, 10,000 messages, atomic mode) on
 *   ioredis-mock, and the ratio of the two wall times;
 * - peak heap with 1,000,000 messages queued in a simulated store (one node; every extra zone
 *   is another full replica).
 */
import { Redis } from 'ioredis';
import RedisMock from 'ioredis-mock';
import { checkHistory } from '../src/model/checker.js';
import type { HistoryOp } from '../src/model/history.js';
import { createQueue } from '../src/queue/create-queue.js';
import { ActorTimers, SkewedClock } from '../src/sim/kernel/actor-time.js';
import { parseSimConfig } from '../src/sim/run/config.js';
import { runSimulation } from '../src/sim/run/run.js';
import { setSimScriptMode } from '../src/sim/store/sim-node.js';
import { SimWorld } from '../src/sim/run/world.js';
import { IoredisMockStore } from '../src/store/ioredis-mock-store.js';
import { describeRuns, referenceWorkload, SPARSE_HOUR, steady, timedRun } from './sim-workloads.js';

const MESSAGES = Number(process.env.BENCH_MESSAGES ?? 10_000);
const QUEUED = Number(process.env.BENCH_QUEUED ?? 1_000_000);

async function mockSameWorkload() {
  const mock = new RedisMock({ host: 'bench', port: 1 });
  const store = new IoredisMockStore(mock as unknown as Redis);
  let t = 1_700_000_000_000;
  const clock = { now: () => t };
  const timers = { setTimeout: () => 0, clearTimeout: () => undefined };
  const zones = ['a', 'b', 'c'];
  const make = (zone: string) =>
    createQueue({ name: 'bench', quorum: store, shards: { allShards: zones, currentShard: zone }, clock, timers, unackInterval: 0, unackTimeout: 10_000 });
  const producers = zones.map(make);
  const consumers = [...zones, ...zones].map(make);
  const start = performance.now();
  await Promise.all(
    producers.map(async (q, p) => {
      for (let i = p * 10; i < MESSAGES; i += 30) {
        const batch = [];
        for (let j = i; j < Math.min(i + 10, MESSAGES); j++) batch.push({ id: `m${j}`, payload: `payload-${j}` });
        await q.push(batch);
      }
    }),
  );
  let acked = 0;
  await Promise.all(
    consumers.map(async (q) => {
      for (;;) {
        const got = await q.pop(20);
        if (got.length === 0) break;
        for (const m of got) if (await q.ack(m.id, m.token)) acked++;
        t += 1;
      }
    }),
  );
  const wallMs = performance.now() - start;
  mock.disconnect();
  return { wallMs, acked };
}

async function memoryAtQueued() {
  const gc = (globalThis as { gc?: () => void }).gc;
  gc?.();
  const before = process.memoryUsage().heapUsed;
  // One node (every extra zone is another full replica); the client waits up to a minute per call.
  const world = new SimWorld(
    parseSimConfig({ seed: 'mem', topology: { zones: ['a'] }, network: { latencyJitterMs: 0, lagMeanMs: 1, lagSpikeProbability: 0 }, workload: { consumers: 1 } }),
  );
  const { kernel } = world;
  const timers = new ActorTimers(kernel);
  const store = world.client('loader', 'a', { consistency: 'DC_ONE', timers, requestTimeoutMs: 60_000 });
  const queue = createQueue({ name: 'mem', quorum: store, clock: new SkewedClock(kernel), timers, unackInterval: 0 });
  let peak = 0;
  const loading = (async () => {
    for (let i = 0; i < QUEUED; i += 1_000) {
      const batch = [];
      for (let j = i; j < Math.min(i + 1_000, QUEUED); j++) batch.push({ id: `m${j}`, payload: `p${j}` });
      await queue.push(batch);
      if (i % 100_000 === 0) peak = Math.max(peak, process.memoryUsage().heapUsed);
    }
  })();
  let done = false;
  void loading.then(() => (done = true));
  await kernel.runUntil(kernel.now + 10 ** 9, () => done);
  await loading;
  gc?.();
  const retained = process.memoryUsage().heapUsed - before;
  peak = Math.max(peak, process.memoryUsage().heapUsed);
  const size = await (async () => {
    const p = queue.size();
    let v = 0;
    void p.then((x) => (v = x));
    await kernel.runUntil(kernel.now + 1_000);
    return v;
  })();
  return { queued: size, peakHeapMb: (peak - before) / 2 ** 20, retainedMb: retained / 2 ** 20, rssMb: process.memoryUsage().rss / 2 ** 20 };
}

/** The history checker on 1,000,000 events (250,000 messages: push, deliver, ack, and a redelivery for some). */
function checkerMillion() {
  const history: HistoryOp[] = [];
  const T = 1_700_000_000_000;
  for (let i = 0; history.length < 1_000_000; i++) {
    const id = `m${i}`;
    const t = T + i;
    history.push({ type: 'push', invokedAt: t, completedAt: t, process: 'p', id, delayMs: 0, outcome: 'ok' });
    history.push({ type: 'deliver', invokedAt: t + 1, completedAt: t + 2, process: `c${i % 8}`, id, outcome: 'ok', leaseUntil: t + 1_001 });
    if (i % 10 === 0) history.push({ type: 'deliver', invokedAt: t + 1_500, completedAt: t + 1_501, process: 'c9', id, outcome: 'ok', leaseUntil: t + 2_500 });
    history.push({ type: 'ack', invokedAt: t + 1_600, completedAt: t + 1_601, process: i % 10 === 0 ? 'c9' : `c${i % 8}`, id, outcome: 'ok' });
  }
  const start = performance.now();
  const report = checkHistory(history, { livenessStart: T, end: T + 10_000_000 }, { reaperIntervalMs: 100, recoveryBoundMs: 1_000 });
  return { events: history.length, ms: performance.now() - start, duplicates: report.counts.duplicate };
}

const checker = checkerMillion();
// The first run of each includes the JIT's warm-up, as a single `dynoq sim` does.
const engine = { parseSimConfig, runSimulation };
const simSparseHour = () => timedRun(engine, SPARSE_HOUR);
const simReference = () => timedRun(engine, referenceWorkload(MESSAGES));
const hour = await simSparseHour();
const hourWarm = await steady(3, simSparseHour);
const simCold = await simReference();
const sim = await steady(3, simReference);
// The same run with every script in Redis's own Lua (no JS twins): what exact Lua costs end to end.
const previousMode = setSimScriptMode('lua');
const simLua = await simReference();
setSimScriptMode(previousMode);
const mock = await mockSameWorkload();
console.log(`reference workload: ${MESSAGES} messages, 3 zones, 6 consumers, lag, one node crash + restart`);
for (const line of describeRuns(simCold, sim, 600)) console.log(line);
console.log(`  exact Lua   : ${simLua.wallMs.toFixed(0)} ms wall (every script in Lua, no twins) → ${(simLua.simulatedMs / simLua.wallMs).toFixed(1)} simulated s per wall s; twins are ${(simLua.wallMs / sim.wallMs).toFixed(1)}× faster${simLua.acked === sim.acked ? '' : ` (acked ${simLua.acked}: the modes differ!)`}`);
console.log(`  ioredis-mock: ${mock.wallMs.toFixed(0)} ms wall (the same messages through the queue, no network model), acked ${mock.acked}`);
console.log(`  ratio       : simulator (warm) is ${(mock.wallMs / sim.wallMs).toFixed(2)}× the speed of ioredis-mock (target ≥ 10×)`);
console.log(`sparse hour: 3,600 messages at 1/s, 6 consumers polling every second`);
for (const line of describeRuns(hour, hourWarm, 3_600)) console.log(line);
console.log(`history checker: ${checker.events} events judged in ${checker.ms.toFixed(0)} ms (${checker.duplicates} duplicates found)`);
const mem = await memoryAtQueued();
console.log(`memory: ${mem.queued} messages queued on one simulated node → ${mem.retainedMb.toFixed(0)} MB retained after GC, ${mem.peakHeapMb.toFixed(0)} MB peak heap growth, rss ${mem.rssMb.toFixed(0)} MB (target < 500 MB)`);
