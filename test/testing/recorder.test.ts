import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { fileLines } from '../../src/cli/line-reader.js';
import { judgeHistory } from '../../src/model/judge.js';
import { judgeStream } from '../../src/model/stream-judge.js';
import { HISTORY_FORMAT_VERSION, type HistoryOp } from '../../src/model/history.js';
import { outcomeOfThrow, recordHistory } from '../../src/public/testing.js';
import type { BaseQueue } from '../../src/queue/base-queue.js';
import { createQueue } from '../../src/queue/create-queue.js';
import type { DynoQueue, QueueMode } from '../../src/queue/dyno-queue.js';
import { DurabilityError, InvalidArgumentError, InvalidMessageError, PatternTooComplexError, QueueClosedError } from '../../src/queue/errors.js';
import { createMultiQueue } from '../../src/queue/multi-queue.js';
import type { QueueOptionsInput } from '../../src/queue/options.js';
import type { Store } from '../../src/store/store.js';
import { backendNames, useBackend } from '../support/backends.js';
import { FakeTime } from '../support/fake-time.js';

// Issue 27, item 3: recordHistory(queue, sink) writes the history of every public call with its
// outcome; the recorded history is judged by the same checker as simulated runs.

/** A store whose `nth` runScript call runs, then rejects as a connection lost before the reply would. */
function lostAfterSending(store: Store, nth: number): Store {
  let n = 0;
  return new Proxy(store, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver);
      if (prop !== 'runScript' || typeof value !== 'function') return value;
      return async (...args: unknown[]) => {
        const reply = await (value as (...a: unknown[]) => Promise<unknown>).apply(target, args);
        if (++n === nth) throw new Error('Connection is closed.');
        return reply;
      };
    },
  });
}

const ops = (lines: readonly string[]): HistoryOp[] => lines.map((l) => JSON.parse(l) as { type: string }).filter((o) => o.type !== 'run') as HistoryOp[];

describe('recordHistory when its process dies', () => {
  it('a worker killed by an uncaught exception still ends its history: the call in flight is unknown, the leased message undetermined, not lost', () => {
    const dir = mkdtempSync(join(tmpdir(), 'dynoq-crash-'));
    try {
      const file = join(dir, 'history.jsonl');
      const child = spawnSync(process.execPath, ['--import', 'tsx', join(import.meta.dirname, '..', 'fixtures', 'recorder-crash.ts'), file], { encoding: 'utf8', timeout: 60_000 });
      expect(child.status).not.toBe(0);
      expect(child.stderr).toContain('worker crashed');
      const lines = readFileSync(file, 'utf8').trim().split('\n');
      const last = JSON.parse(lines.at(-1)!) as { type: string };
      expect(last.type).toBe('end');
      const inFlight = lines.map((l) => JSON.parse(l) as Record<string, unknown>).filter((o) => o.type === 'pop' && o.completedAt === undefined);
      expect(inFlight).toMatchObject([{ process: 'poller', outcome: 'unknown', delivered: 0 }]);
      const { report, inFlight: count } = judgeHistory(lines.join('\n'));
      expect(count).toBe(1);
      expect(report.properties.atLeastOnce).toBe(true);
      expect(report.endings.undetermined).toBe(1);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 90_000);

  it('a worker killed outright (SIGKILL) leaves no end line: its history ends at its last line, and the message it held is undetermined, not lost', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dynoq-kill-'));
    try {
      const file = join(dir, 'history.jsonl');
      const child = spawnSync(process.execPath, ['--import', 'tsx', join(import.meta.dirname, '..', 'fixtures', 'recorder-crash.ts'), file, 'SIGKILL'], { encoding: 'utf8', timeout: 60_000 });
      expect(child.signal).toBe('SIGKILL');
      const lines = readFileSync(file, 'utf8').trim().split('\n');
      const written = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
      // Nothing after the kill: no end line, and the pop in flight was never written.
      expect(written.map((o) => o.type)).toEqual(['run', 'push', 'deliver', 'pop']);
      const deliver = written[2] as { completedAt: number; leaseUntil: number };
      for (const j of [judgeHistory(lines.join('\n')), await judgeStream(fileLines(file), file)]) {
        expect(j.phases.end).toBe(deliver.completedAt);
        expect(j.report.counts['lost-after-delivery'] + j.report.counts['lost-never-delivered']).toBe(0);
        expect(j.report.properties.atLeastOnce).toBe(true);
        expect(j.report.endings).toMatchObject({ messages: 1, undetermined: 1, inFlight: 0 });
        expect(j.report.verdict).toBe('unknown');
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 90_000);
});

describe.each(backendNames())('recordHistory on %s', (backendName) => {
  const backend = useBackend(backendName);
  let counter = 0;
  const make = (mode: QueueMode, over: Partial<QueueOptionsInput> = {}, store?: Store) => {
    const time = new FakeTime();
    const queue = createQueue({
      name: `rec${++counter}`,
      mode,
      quorum: store ?? backend.store(),
      clock: time,
      timers: time,
      unackInterval: 0,
      unackTimeout: 1_000,
      pollInterval: 10,
      ...backend.queueDefaults,
      ...over,
    }) as BaseQueue;
    return { queue, time };
  };
  const msg = (id: string, timeout = 0, priority = 0) => ({ id, payload: `p-${id}`, timeout, priority });

  describe.each(['atomic', 'legacy'] as const)('%s mode', (mode) => {
    it('records a workload using every recorded call; the judged history holds every property', async () => {
      const { queue, time } = make(mode);
      const lines: string[] = [];
      const producer = recordHistory(queue, (l) => lines.push(l), { process: 'producer', clock: () => time.now() });
      const c1 = producer.as('c1');
      const c2 = producer.as('c2');

      await producer.push([msg('m1', 0, 2), msg('m2', 0, 1), msg('m3'), msg('m4'), msg('late', 500)]);
      expect(await producer.ensure(msg('m1'))).toBe(false);
      expect(await producer.ensure(msg('e1'))).toBe(true);
      await expect(producer.push([{ id: 'bad id', payload: 'x' }])).rejects.toThrow(/may only contain/);

      await time.advance(5);
      const first = await c1.pop(2); // m2 (priority 1) first in atomic mode
      expect(first).toHaveLength(2);
      expect(await c1.setUnackTimeout(first[0]!.id, 5_000, first[0]!.token)).toBe(true);
      expect(await c1.setTimeout(first[0]!.id, 10)).toBe(false); // held, not queued: refused
      expect(await c1.release(first[1]!.id, first[1]!.token)).toBe(true);
      const next = await c1.ackAndPop(first[0]!.id, first[0]!.token, 1);
      expect(next.acked).toBe(true);
      const bulk = await c2.bulkPop(10);
      const held = [...next.messages, ...bulk];
      const gotE1 = held.find((m) => m.id === 'e1');
      const rest = held.filter((m) => m !== gotE1);
      if (gotE1) await c2.ack(gotE1.id, gotE1.token);
      else expect(await c2.popWithMsgId('e1')).toBeNull();
      await c2.ackManyAndPop(rest, 1);
      // 'late' is due 500 ms after its push: reschedule it, then take it by id after it is due
      expect(await producer.setTimeout('late', 200)).toBe(true);
      await time.advance(300);
      const byId = await c1.popWithMsgId('late');
      expect(byId?.id).toBe('late');
      await c1.ackMany([byId!]);
      // one more through the predicate pop, one through consume(), one removed
      await producer.push([msg('pred'), msg('cons'), msg('gone')]);
      expect(await producer.remove('gone')).toBe(true);
      const pred = await c2.popMsgWithPredicate('^p%-pred$');
      expect(pred?.id).toBe('pred');
      await c2.ack(pred!.id, pred!.token);
      for await (const m of c1.consume({ batch: 1, wait: 0 })) {
        await c1.ack(m.id, m.token);
        break;
      }
      expect(await c1.ack('never-pushed')).toBe(false);

      const history = ops(lines);
      expect(JSON.parse(lines[0]!)).toEqual({ type: 'run', version: HISTORY_FORMAT_VERSION });
      const types = new Set(history.map((o) => o.type));
      expect([...types].sort()).toEqual(['ack', 'deliver', 'ensure', 'extend', 'pop', 'push', 'release', 'remove', 'reschedule']);
      // push lines carry delay, priority and the shard the queue picked
      expect(history.find((o) => o.type === 'push' && o.id === 'late')).toMatchObject({ process: 'producer', outcome: 'ok', delayMs: 500, priority: 0, shard: 'a' });
      expect(history.find((o) => o.type === 'push' && o.id === 'bad id')).toMatchObject({ outcome: 'fail' });
      expect(history.filter((o) => o.type === 'ensure').map((o) => [o.id, o.outcome, 'created' in o ? o.created : undefined])).toEqual([
        ['m1', 'ok', false],
        ['e1', 'ok', true],
      ]);
      expect(history.find((o) => o.type === 'reschedule' && o.process === 'c1')).toMatchObject({ outcome: 'fail' });
      expect(history.find((o) => o.type === 'ack' && o.id === 'never-pushed')).toMatchObject({ outcome: 'fail' });
      // a delivery's lease: its pop's invocation + the queue's unack timeout; the pop line beside it
      const d = history.find((o) => o.type === 'deliver' && o.id === 'late')!;
      expect(d).toMatchObject({ via: 'id', shard: 'a', leaseUntil: d.invokedAt + 1_000 });
      expect(history.find((o) => o.type === 'pop' && o.via === 'id' && o.id === 'late')).toMatchObject({ outcome: 'ok', delivered: 1 });
      expect(history.find((o) => o.type === 'deliver' && o.id === 'pred')).toMatchObject({ via: 'predicate' });
      // ackAndPop is recorded as its parts, with the call's times
      const ackPart = history.find((o) => o.type === 'ack' && o.id === first[0]!.id)!;
      const popPart = history.find((o) => o.type === 'pop' && o.invokedAt === ackPart.invokedAt && o.process === 'c1' && o.completedAt === ackPart.completedAt);
      expect(popPart).toMatchObject({ via: 'schedule', shard: 'a' });

      const { report } = judgeHistory(lines.join('\n'));
      expect(report.violations.filter((v) => v.kind !== 'duplicate')).toEqual([]);
      expect(Object.values(report.properties).every(Boolean)).toBe(true);
      expect(report.pushed).toBe(9);
    });
  });

  it('stopRecording ends the history: calls in flight written as unknown, then the end line, nothing after; a message still leased then is undetermined, not lost', async () => {
    const { queue, time } = make('atomic');
    const lines: string[] = [];
    const t0 = time.now();
    const worker = recordHistory(queue, (l) => lines.push(l), { process: 'worker', clock: () => time.now() - t0 });
    await worker.push([msg('m')]);
    const [held] = await worker.pop(1); // leased to 1_000
    await time.advance(10);
    const waiting = worker.as('poller').pop(1, { wait: 500 }); // nothing due: a long poll in flight
    await time.advance(5);
    worker.stopRecording();
    await time.advance(600);
    expect(await waiting).toHaveLength(0);
    expect(await worker.ack('m', held!.token)).toBe(true); // after the end: not recorded
    const parsed = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(parsed.at(-1)).toEqual({ type: 'end', at: 15 });
    expect(parsed.at(-2)).toEqual({ type: 'pop', process: 'poller', invokedAt: 10, outcome: 'unknown', via: 'schedule', delivered: 0, ...(parsed.at(-2)!.shard !== undefined ? { shard: parsed.at(-2)!.shard } : {}) });
    expect(parsed.some((o) => o.type === 'ack')).toBe(false);
    const { report, phases, inFlight } = judgeHistory(lines.join('\n'));
    expect(phases.end).toBe(15);
    expect(inFlight).toBe(1);
    // still leased when the recording stopped: its worker may yet ack it — not lost, undetermined
    expect(report.properties.atLeastOnce).toBe(true);
    expect(report.endings.undetermined).toBe(1);
    expect(report.verdict).toBe('unknown');
    worker.stopRecording(); // once only
    expect(lines.filter((l) => l.includes('"type":"end"'))).toHaveLength(1);
  });

  it('the end line is when the history ends: a lease that ran out long before the recording stopped, never recovered, is lost', async () => {
    const { queue, time } = make('atomic');
    const lines: string[] = [];
    const t0 = time.now();
    const worker = recordHistory(queue, (l) => lines.push(l), { process: 'worker', clock: () => time.now() - t0, run: { recoveryBoundMs: 100_000 } });
    await worker.push([msg('m')]);
    await worker.pop(1); // leased to 1_000, never acked; no reaper runs
    await time.advance(3_000);
    worker.stopRecording();
    const { report, phases } = judgeHistory(lines.join('\n'));
    expect(phases.end).toBe(3_000);
    expect(report.counts['lost-after-delivery']).toBe(1);
  });

  it('a stale token’s ack is a fail; the re-delivery after the lease ran out is an allowed duplicate', async () => {
    const { queue, time } = make('atomic');
    const lines: string[] = [];
    const a = recordHistory(queue, (l) => lines.push(l), { process: 'a', clock: () => time.now() });
    const b = a.as('b');
    await a.push([msg('m')]);
    const [held] = await a.pop(1);
    await time.advance(1_500);
    expect(await queue.processUnacks()).toBe(1);
    const [again] = await b.pop(1);
    expect(again?.id).toBe('m');
    expect(await a.ack('m', held!.token)).toBe(false);
    expect(await b.ack('m', again!.token)).toBe(true);
    expect(ops(lines).filter((o) => o.type === 'ack').map((o) => [o.process, o.outcome])).toEqual([
      ['a', 'fail'],
      ['b', 'ok'],
    ]);
    const { report } = judgeHistory(lines.join('\n'));
    expect(report.counts.duplicate).toBe(1);
    expect(Object.values(report.properties).every(Boolean)).toBe(true);
  });

  it('a planted violation is found: a lease the queue did not keep shows as a double pop', async () => {
    // The recorder is told the lease is 60 s; the queue's is 1 s, so its reaper hands the message
    // to another consumer while the first still holds it by the promise.
    const { queue, time } = make('atomic');
    const lines: string[] = [];
    const a = recordHistory(queue, (l) => lines.push(l), { process: 'a', clock: () => time.now(), unackTimeoutMs: 60_000 });
    const b = a.as('b');
    await a.push([msg('m')]);
    const [held] = await a.pop(1);
    await time.advance(1_500);
    await queue.processUnacks();
    const [again] = await b.pop(1);
    await time.advance(10); // a still holds it by the promise when b's pop returns (ties are read either way)
    await b.ack('m', again!.token);
    await a.ack('m', held!.token);
    const { report } = judgeHistory(lines.join('\n'));
    expect(report.properties.noDoublePop).toBe(false);
    expect(report.violations.find((v) => v.kind === 'double-pop')?.id).toBe('m');
  });

  it('a store error after the ack was sent is unknown: the checker does not count the message lost', async () => {
    // runScript calls: 1 push, 2 pop, 3 ack (applied, then the connection is lost)
    const { queue, time } = make('atomic', {}, lostAfterSending(backend.store(), 3));
    const lines: string[] = [];
    const q = recordHistory(queue, (l) => lines.push(l), { process: 'c', clock: () => time.now() });
    await q.push([msg('m')]);
    const [held] = await q.pop(1);
    await expect(q.ack('m', held!.token)).rejects.toThrow(/Connection is closed/);
    expect(ops(lines).find((o) => o.type === 'ack')).toMatchObject({ outcome: 'unknown' });
    expect(await queue.get('m')).toBeNull(); // it did apply
    const { report } = judgeHistory(lines.join('\n'));
    expect(report.unknownOps).toBe(1);
    expect(report.properties.atLeastOnce).toBe(true);
    // the same history with the ack recorded as a refusal would be a loss: the outcome matters
    const asFail = lines.map((l) => (l.includes('"type":"ack"') ? l.replace('"outcome":"unknown"', '"outcome":"fail"') : l));
    expect(judgeHistory(asFail.join('\n')).report.properties.atLeastOnce).toBe(false);
  });

  it('consume() is recorded as its pops; leaving it early records the release of the rest of the batch', async () => {
    const { queue, time } = make('atomic');
    const lines: string[] = [];
    const q = recordHistory(queue, (l) => lines.push(l), { process: 'c', clock: () => time.now() });
    await q.push([msg('a'), msg('b'), msg('c')]);
    for await (const m of q.consume({ batch: 3, wait: 0 })) {
      await q.ack(m.id, m.token);
      break;
    }
    const history = ops(lines);
    expect(history.filter((o) => o.type === 'pop')).toMatchObject([{ via: 'schedule', delivered: 3, outcome: 'ok' }]);
    expect(history.filter((o) => o.type === 'release').map((o) => [o.id, o.outcome])).toEqual([
      ['b', 'ok'],
      ['c', 'ok'],
    ]);
    expect((await queue.shardSizes()).a).toEqual({ size: 2, uacked: 0 });
    const { report } = judgeHistory(lines.join('\n'), { end: time.now() });
    expect(report.acked).toBe(1);
  });

  it('records the shard the strategy picked, and writes lines to a stream', async () => {
    const time = new FakeTime();
    const queue = createQueue({
      name: `rec${++counter}`,
      quorum: backend.store(),
      shards: { allShards: ['a', 'b'], currentShard: 'a' },
      clock: time,
      timers: time,
      unackInterval: 0,
      ...backend.queueDefaults,
    });
    const stream = new PassThrough();
    const chunks: string[] = [];
    stream.on('data', (c: Buffer) => chunks.push(c.toString()));
    const q = recordHistory(queue, stream, { clock: () => time.now(), run: { recoveryBoundMs: 2_000 } });
    await q.push([msg('x'), msg('y'), msg('z')]);
    await new Promise((r) => setImmediate(r));
    const text = chunks.join('');
    expect(text.endsWith('\n')).toBe(true);
    const lines = text.trim().split('\n');
    expect(JSON.parse(lines[0]!)).toEqual({ type: 'run', version: HISTORY_FORMAT_VERSION, recoveryBoundMs: 2_000 });
    // Dyno's round robin increments before reading: b, a, b
    expect(ops(lines).map((o) => (o.type === 'push' ? o.shard : null))).toEqual(['b', 'a', 'b']);
    q.stopRecording();
  });

  it('records a MultiQueue’s shard picks and local pops', async () => {
    const time = new FakeTime();
    const queue = createMultiQueue({
      name: `multi${++counter}`,
      shards: [
        { name: 'a', store: backend.store() },
        { name: 'b', store: backend.store() },
      ],
      currentShard: 'b',
      sharding: 'hash',
      clock: time,
      timers: time,
      unackInterval: 0,
      unackTimeout: 2_000,
      ...backend.queueDefaults,
    } as Parameters<typeof createMultiQueue>[0]);
    const lines: string[] = [];
    const q = recordHistory(queue, (l) => lines.push(l), { clock: () => time.now(), run: false });
    await q.push([msg('k1'), msg('k2'), msg('k3'), msg('k4')]);
    await q.pop(4);
    const history = ops(lines);
    expect(lines.every((l) => !l.includes('"run"'))).toBe(true);
    expect(history.filter((o) => o.type === 'push').every((o) => o.type === 'push' && (o.shard === 'a' || o.shard === 'b'))).toBe(true);
    const pop = history.find((o) => o.type === 'pop')!;
    expect(pop).toMatchObject({ shard: 'b' });
    for (const d of history.filter((o) => o.type === 'deliver')) {
      expect(d).toMatchObject({ shard: 'b', leaseUntil: pop.invokedAt + 2_000 });
      expect(history.find((o) => o.type === 'push' && o.id === d.id)).toMatchObject({ shard: 'b' });
    }
  });
});

describe('outcomeOfThrow: refusals before sending are fail, anything that may have applied is unknown', () => {
  it.each([
    [new InvalidMessageError('id', 'must not be empty'), 'fail'],
    [new InvalidArgumentError('count', 'must be an integer'), 'fail'],
    [new QueueClosedError('q'), 'fail'],
    [new PatternTooComplexError('.-.-b', 'm', 10, 100), 'fail'],
    [new DurabilityError('push', ['m'], 1, 0), 'unknown'],
    [new Error('Connection is closed.'), 'unknown'],
    [Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }), 'unknown'],
    ['a string', 'unknown'],
  ] as const)('%s → %s', (err, outcome) => {
    expect(outcomeOfThrow(err)).toBe(outcome);
  });
});

describe('recordHistory records a lease a pop kept back', () => {
  it('as a kept-back line (leased to nobody until the return + lease) beside the ok pop, and consume() tells onLeasesKeptBack the ids', async () => {
    let t = 1_000;
    // A pop whose reply came a whole lease late: it leased m and kept it back.
    const foreign = { name: 'x', mode: 'atomic', pop: async () => ((t += 1_500), Object.assign([], { keptBack: ['m'] })) } as unknown as DynoQueue;
    const lines: string[] = [];
    const q = recordHistory(foreign, (l) => lines.push(l), { process: 'c', clock: () => t, unackTimeoutMs: 1_000, run: false });
    const stop = new AbortController();
    const told: (readonly string[])[] = [];
    for await (const _ of q.consume({ signal: stop.signal, onLeasesKeptBack: (ids) => (told.push(ids), stop.abort()) })) break;
    expect(told).toEqual([['m']]);
    expect(lines.map((l) => JSON.parse(l))).toEqual([
      { type: 'kept-back', process: 'c', id: 'm', invokedAt: 1_000, completedAt: 2_500, outcome: 'ok', leaseUntil: 3_500 },
      { type: 'pop', process: 'c', invokedAt: 1_000, completedAt: 2_500, outcome: 'ok', via: 'schedule', delivered: 0 },
    ]);
  });
});

describe('recordHistory refuses what it cannot record', () => {
  it('throws InvalidArgumentError for a bad sink, clock, process or a foreign queue without a lease length', () => {
    const foreign = { name: 'x', mode: 'atomic', pop: async () => [] } as unknown as DynoQueue;
    expect(() => recordHistory(foreign, () => undefined)).toThrow(InvalidArgumentError);
    expect(() => recordHistory(foreign, () => undefined)).toThrow(/unackTimeoutMs: must be given/);
    expect(() => recordHistory(foreign, 42 as never, { unackTimeoutMs: 1 })).toThrow(/invalid sink: must be a function receiving lines or a writable stream/);
    expect(() => recordHistory(foreign, () => undefined, { unackTimeoutMs: -1 })).toThrow(/positive/);
    expect(() => recordHistory(foreign, () => undefined, { unackTimeoutMs: 1, process: '' })).toThrow(/process/);
    expect(() => recordHistory(foreign, () => undefined, { unackTimeoutMs: 1, clock: 5 as never })).toThrow(/clock/);
    expect(() => recordHistory(null as never, () => undefined)).toThrow(/invalid queue: must be a dynoq queue/);
  });
});
