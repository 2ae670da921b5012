/**
 * A synthetic history in the format `dynoq judge` reads, for the judge benchmark (npm run bench:judge):
 * `tsx bench/judge-history.ts OPERATIONS FILE [--delivery-bound MS]`. Each message is pushed (on one of
 * 4 shards, priorities 0–2), popped (a pop line and a deliver line) and acked, ~100 messages in flight
 * at once; some faults: 1 % of acks time out (unknown), 0.5 % of consumers die holding the message (no
 * ack: it is delivered again after its lease, a duplicate), 0.1 % of pushes time out, and a
 * partition of 2 s every 100,000 messages (fault lines). Deterministic (no randomness: i mod primes).
 */
import { createWriteStream } from 'node:fs';

export async function writeSyntheticHistory(operations: number, path: string, deliveryBoundMs?: number): Promise<{ lines: number; messages: number }> {
  const out = createWriteStream(path);
  let buffer: string[] = [];
  let lines = 0;
  let ops = 0;
  const write = async (o: object) => {
    buffer.push(JSON.stringify(o));
    lines++;
    if (buffer.length >= 10_000) {
      if (!out.write(`${buffer.join('\n')}\n`)) await new Promise<void>((r) => out.once('drain', () => r()));
      buffer = [];
    }
  };
  const LAG = 100; // messages between a push and its delivery: ~100 in flight
  const t0 = 1_700_000_000_000;
  const messages = Math.ceil(operations / 4);
  await write({ type: 'run', version: 3, livenessStart: t0, end: t0 + (messages + 2 * LAG) * 10 + 60_000, reaperIntervalMs: 1_000, recoveryBoundMs: 5_000, ...(deliveryBoundMs !== undefined ? { deliveryBoundMs } : {}) });
  // Step i: push message i, pop and deliver message i - LAG, ack message i - 2·LAG (or redeliver a dropped one).
  for (let i = 0; ops < operations; i++) {
    const t = t0 + i * 10;
    if (i % 100_000 === 0 && i > 0) {
      await write({ type: 'fault', phase: 'start', kind: 'partition', target: `node-${(i / 100_000) % 3}`, at: t, detail: 'synthetic' });
      await write({ type: 'fault', phase: 'end', kind: 'partition', target: `node-${(i / 100_000) % 3}`, at: t + 2_000 });
    }
    if (i < messages) {
      await write({ type: 'push', process: `producer-${i % 8}`, id: `msg-${i}`, invokedAt: t, completedAt: t + 2, outcome: i % 1_000 === 7 ? 'unknown' : 'ok', delayMs: 0, priority: i % 3, shard: `s${i % 4}` });
      ops++;
    }
    const d = i - LAG;
    if (d >= 0 && d < messages && ops < operations) {
      const consumer = `worker-${d % 16}`;
      await write({ type: 'pop', process: consumer, invokedAt: t + 3, completedAt: t + 5, outcome: 'ok', via: 'schedule', shard: `s${d % 4}`, delivered: 1 });
      await write({ type: 'deliver', process: consumer, id: `msg-${d}`, invokedAt: t + 3, completedAt: t + 5, outcome: 'ok', leaseUntil: t + 3 + 30_000, via: 'schedule', shard: `s${d % 4}`, attempt: 1 });
      ops += 2;
    }
    const a = i - 2 * LAG;
    if (a >= 0 && a < messages && ops < operations) {
      const consumer = `worker-${a % 16}`;
      if (a % 200 === 11) {
        // The consumer died holding it: delivered again once the lease ran out, then acked.
        await write({ type: 'deliver', process: `worker-${(a + 1) % 16}`, id: `msg-${a}`, invokedAt: t + 31_000, completedAt: t + 31_002, outcome: 'ok', leaseUntil: t + 61_000, via: 'schedule', shard: `s${a % 4}`, attempt: 2 });
        await write({ type: 'ack', process: `worker-${(a + 1) % 16}`, id: `msg-${a}`, invokedAt: t + 31_010, completedAt: t + 31_012, outcome: 'ok' });
      } else {
        await write({ type: 'ack', process: consumer, id: `msg-${a}`, invokedAt: t + 6, completedAt: t + 8, outcome: a % 100 === 3 ? 'unknown' : 'ok' });
      }
      ops++;
    }
    if (i >= messages + 2 * LAG) break;
  }
  out.write(buffer.length > 0 ? `${buffer.join('\n')}\n` : '');
  await new Promise<void>((resolve, reject) => out.end((err?: Error | null) => (err ? reject(err) : resolve())));
  return { lines, messages };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const [operations, path] = process.argv.slice(2);
  const bound = process.argv.indexOf('--delivery-bound');
  const r = await writeSyntheticHistory(Number(operations), path!, bound > 0 ? Number(process.argv[bound + 1]) : undefined);
  console.log(`${path}: ${r.lines} lines, ${r.messages} messages`);
}
