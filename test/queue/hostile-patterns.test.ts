import fc from 'fast-check';
import { Worker } from 'node:worker_threads';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createQueue } from '../../src/public/dynoq.js';
import type { QueueMode } from '../../src/queue/dyno-queue.js';
import { InvalidArgumentError, PatternTooComplexError } from '../../src/queue/errors.js';
import { connect } from '../../src/store/connect.js';
import { IoredisStore } from '../../src/store/ioredis-store.js';
import { redisRequired, redisServerBinary, startRedisServer, type RedisServer } from '../support/redis-server.js';

// Issue 15, item 1: no caller input can make a script run long. Pathological predicate patterns
// (nested lazy/greedy quantifiers that backtrack for minutes inside Redis's pattern matcher) are
// run against large payloads on a real redis-server while a second connection, on its own thread,
// PINGs without pause. The bounds: no command Redis executed took COMMAND_BOUND_MS (SLOWLOG: Redis's
// own execution time), and no PING waited PING_BOUND_MS (generous: the PING thread and redis-server
// share 2 busy cores with the rest of the suite; under the full suite one PING took 253 ms). Before
// this change one `containsPredicate('.-.-.-b')` over one 10 KB payload blocked redis-server for over
// 10 minutes, and `.-zzz` over 10,000 × 10 KB for 44–47 s.
const PING_BOUND_MS = 1_000;
const COMMAND_BOUND_MS = 100;

const available = redisServerBinary() !== null;
if (!available && redisRequired) throw new Error('REQUIRE_REDIS=1 but redis-server is not installed');

/** A PING loop on its own thread and connection; stop() returns the slowest PING in ms and how many ran. */
function startPinger(port: number): { ready: Promise<void>; stop(): Promise<{ maxMs: number; pings: number }> } {
  const worker = new Worker(
    `const { parentPort, workerData } = require('node:worker_threads');
const { Redis } = require('ioredis');
const client = new Redis({ host: '127.0.0.1', port: workerData.port });
let stop = false, max = 0, pings = 0;
parentPort.on('message', () => { stop = true; });
(async () => {
  await client.ping();
  parentPort.postMessage({ ready: true });
  while (!stop) {
    const t = performance.now();
    await client.ping();
    max = Math.max(max, performance.now() - t);
    pings++;
  }
  client.disconnect();
  parentPort.postMessage({ max, pings });
})();`,
    { eval: true, workerData: { port } },
  );
  let readyResolve!: () => void;
  const ready = new Promise<void>((r) => (readyResolve = r));
  let doneResolve!: (v: { maxMs: number; pings: number }) => void;
  const done = new Promise<{ maxMs: number; pings: number }>((r) => (doneResolve = r));
  worker.on('message', (m: { ready?: boolean; max?: number; pings?: number }) => {
    if (m.ready) readyResolve();
    else doneResolve({ maxMs: m.max!, pings: m.pings! });
  });
  return {
    ready,
    async stop() {
      worker.postMessage('stop');
      const result = await done;
      await worker.terminate();
      return result;
    },
  };
}

/** Patterns built to backtrack: runs of lazy/greedy wildcards before a byte the payloads lack. */
const quantified = fc.constantFrom('.-', '.*', '.+', 'a*', 'a-', '%a*', '%w-', '[^z]*', '[^z]-', '(.-)', '(a*)', '.?');
const tail = fc.constantFrom('b', 'zzz', 'z', '$', '%d', 'a$', '(z)', 'q+', '');
const hostile = fc.tuple(fc.array(quantified, { minLength: 1, maxLength: 6 }), tail).map(([qs, t]) => qs.join('') + t);

describe.runIf(available).each(['atomic', 'legacy'] as QueueMode[])('hostile predicate patterns on redis-server (%s mode)', (mode) => {
  let server: RedisServer;
  let store: IoredisStore;
  beforeAll(async () => {
    server = await startRedisServer();
    store = new IoredisStore(connect(server.url));
  }, 20_000);
  afterAll(async () => {
    store.client.disconnect();
    await server.stop();
  });

  it(`no call blocks Redis for ${COMMAND_BOUND_MS} ms (no PING waits ${PING_BOUND_MS} ms): fuzzed backtracking patterns over 200 × 10 KB and 2 × 512 KiB payloads`, async () => {
    const queue = createQueue({ name: `hostile-${mode}`, quorum: store, mode, unackInterval: 0 });
    const small = Array.from({ length: 200 }, (_, i) => ({ id: `m${i}`, payload: 'a'.repeat(10_000) }));
    await queue.push(small);
    await queue.push([0, 1].map((i) => ({ id: `big${i}`, payload: 'a'.repeat(512 * 1024 - 16) })));
    await store.client.config('SET', 'slowlog-log-slower-than', '1000');
    await store.client.slowlog('RESET');
    const pinger = startPinger(server.port);
    await pinger.ready;
    const outcomes = { matched: 0, unmatched: 0, tooComplex: 0, popped: 0 };
    const calls = async (pattern: string) => {
      for (const call of [
        () => queue.containsPredicate(pattern),
        () => queue.getMsgWithPredicate(pattern, true),
        async () => {
          const m = await queue.popMsgWithPredicate(pattern);
          if (m) outcomes.popped++;
          return m;
        },
      ]) {
        try {
          const found = await call();
          if (found) outcomes.matched++;
          else outcomes.unmatched++;
        } catch (err) {
          // the only refusal a well-formed pattern may meet
          expect(err).toBeInstanceOf(PatternTooComplexError);
          outcomes.tooComplex++;
        }
      }
    };
    for (const fixed of ['.-.-.-b', '.-zzz', '.*.*.*.*.*y', '(.-)(.-)(.-)%3%2%1z', '[^z]-[^z]-[^z]-[^z]-z']) await calls(fixed);
    await fc.assert(fc.asyncProperty(hostile, async (p) => calls(p)), { numRuns: 40, seed: 15 });
    const { maxMs, pings } = await pinger.stop();
    const slow = (await store.client.slowlog('GET', 100_000)) as [number, number, number, string[]][];
    const slowestCommandMs = Math.max(0, ...slow.map((e) => e[2] / 1000));
    console.log(
      `${mode}: slowest PING ${maxMs.toFixed(1)} ms over ${pings} PINGs; slowest command ${slowestCommandMs.toFixed(1)} ms; predicate calls ${JSON.stringify(outcomes)}`,
    );
    expect(pings).toBeGreaterThan(100);
    expect(slowestCommandMs).toBeLessThan(COMMAND_BOUND_MS);
    expect(maxMs).toBeLessThan(PING_BOUND_MS);
    expect(outcomes.tooComplex).toBeGreaterThan(0);
    // a refused call changed nothing: every message not popped is still queued
    expect(await queue.size()).toBe(202 - outcomes.popped);
    await queue.close();
  }, 300_000);

  it('malformed patterns are typed errors, not Redis errors, and a lone surrogate is refused at push', async () => {
    const queue = createQueue({ name: `malformed-${mode}`, quorum: store, mode, unackInterval: 0 });
    await queue.push([{ id: 'ok', payload: 'order 42' }]);
    for (const p of ['[a', '%', 'a)', '%b', '%9']) {
      await expect(queue.containsPredicate(p)).rejects.toBeInstanceOf(InvalidArgumentError);
    }
    await expect(queue.push([{ id: 'bad', payload: 'x\ud83dy' }])).rejects.toMatchObject({ field: 'payload', messageId: 'bad' });
    expect(await queue.get('bad')).toBeNull();
    expect(await queue.containsPredicate('order %d+')).toBe(true);
    expect(await queue.getAllMessages()).toMatchObject([{ id: 'ok', payload: 'order 42' }]);
    await queue.close();
  });
});
