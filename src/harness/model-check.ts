import fc from 'fast-check';
import { AtomicModel } from '../model/atomic-model.js';
import { LegacyModel } from '../model/legacy-model.js';
import type { ModelLeased, ModelMessage, QueueModel } from '../model/queue-model.js';
import type { BaseQueue } from '../queue/base-queue.js';
import { createQueue } from '../queue/create-queue.js';
import type { QueueMode } from '../queue/dyno-queue.js';
import type { PoppedMessage } from '../queue/message.js';
import type { QueueOptionsInput } from '../queue/options.js';
import type { Store } from '../store/store.js';
import { FakeTime } from './manual-time.js';

/**
 * The model-based check (SPEC §7): fast-check command sequences run against a real queue on some
 * store and against the reference model; every reply and the final state must agree. Shared by
 * the property suite and `dynoq check --redis URL`.
 */

/** Throws when the real reply differs from the model's. */
function agree(actual: unknown, expected: unknown, what: string): void {
  const a = JSON.stringify(actual);
  const e = JSON.stringify(expected);
  if (a !== e) throw new Error(`${what}: queue replied ${a}, model expects ${e}`);
}

const UNACK = 100;
const IDS = ['a', 'b', 'c'];

/** The system under test: a real queue, the clock it reads, and how to await it on its store. */
export interface Real {
  readonly queue: BaseQueue;
  readonly time: FakeTime;
  readonly run: <T>(p: Promise<T>) => Promise<T>;
  /** Tokens handed out so far, per id, oldest first. */
  readonly tokens: Map<string, string[]>;
}

type TokenChoice = 'none' | 'latest' | 'oldest';
type Op =
  | { kind: 'push'; messages: ModelMessage[] }
  | { kind: 'pop'; count: number }
  | { kind: 'popWithMsgId'; id: string }
  | { kind: 'ack'; id: string; token: TokenChoice }
  | { kind: 'ackAndPop'; id: string; token: TokenChoice; count: number }
  | { kind: 'ackMany'; acks: { id: string; token: TokenChoice }[] }
  | { kind: 'ackManyAndPop'; acks: { id: string; token: TokenChoice }[]; count: number }
  | { kind: 'extend'; id: string; timeoutMs: number; token: TokenChoice }
  | { kind: 'setTimeout'; id: string; timeoutMs: number }
  | { kind: 'remove'; id: string }
  | { kind: 'ensure'; message: ModelMessage }
  | { kind: 'processUnacks' }
  | { kind: 'get'; id: string }
  | { kind: 'peek'; count: number }
  | { kind: 'size' }
  | { kind: 'advance'; ms: number };

const id = fc.constantFrom(...IDS);
const message = fc.record({
  id,
  payload: fc.constantFrom('x', 'y', 'hello world'),
  timeout: fc.constantFrom(0, 0, 5, 50),
  priority: fc.constantFrom(0, 1, 2, 50),
});
const token = fc.constantFrom<TokenChoice>('none', 'latest', 'oldest', 'oldest');
/** A batch of acks: repeated ids and stale tokens included (each is judged in order). */
const acks = fc.array(fc.record({ id, token }), { maxLength: 3 });

const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 4, arbitrary: fc.array(message, { minLength: 1, maxLength: 3 }).map((messages) => ({ kind: 'push' as const, messages })) },
  { weight: 4, arbitrary: fc.integer({ min: 1, max: 3 }).map((count) => ({ kind: 'pop' as const, count })) },
  { weight: 1, arbitrary: id.map((i) => ({ kind: 'popWithMsgId' as const, id: i })) },
  { weight: 3, arbitrary: fc.record({ id, token }).map((o) => ({ kind: 'ack' as const, ...o })) },
  { weight: 2, arbitrary: fc.record({ id, token, count: fc.integer({ min: 1, max: 2 }) }).map((o) => ({ kind: 'ackAndPop' as const, ...o })) },
  { weight: 1, arbitrary: acks.map((a) => ({ kind: 'ackMany' as const, acks: a })) },
  { weight: 2, arbitrary: fc.record({ acks, count: fc.integer({ min: 1, max: 3 }) }).map((o) => ({ kind: 'ackManyAndPop' as const, ...o })) },
  { weight: 1, arbitrary: fc.record({ id, timeoutMs: fc.constantFrom(10, 300), token }).map((o) => ({ kind: 'extend' as const, ...o })) },
  { weight: 1, arbitrary: fc.record({ id, timeoutMs: fc.constantFrom(0, 20) }).map((o) => ({ kind: 'setTimeout' as const, ...o })) },
  { weight: 1, arbitrary: id.map((i) => ({ kind: 'remove' as const, id: i })) },
  { weight: 1, arbitrary: message.map((m) => ({ kind: 'ensure' as const, message: m })) },
  { weight: 3, arbitrary: fc.constant({ kind: 'processUnacks' as const }) },
  { weight: 1, arbitrary: id.map((i) => ({ kind: 'get' as const, id: i })) },
  { weight: 1, arbitrary: fc.integer({ min: 1, max: 4 }).map((count) => ({ kind: 'peek' as const, count })) },
  { weight: 1, arbitrary: fc.constant({ kind: 'size' as const }) },
  { weight: 4, arbitrary: fc.constantFrom(1, 10, 60, 200, 200).map((ms) => ({ kind: 'advance' as const, ms })) },
);

/** The fields of a popped message the model states. */
function leasedReply(m: PoppedMessage): ModelLeased {
  return { id: m.id, payload: m.payload, ...(m.token ? { token: m.token } : {}) };
}

function pickToken(real: Real, op: { id: string; token: TokenChoice }): string | undefined {
  const seen = real.tokens.get(op.id) ?? [];
  if (op.token === 'none' || seen.length === 0) return undefined;
  return op.token === 'latest' ? seen[seen.length - 1] : seen[0];
}

/** One fast-check command: runs the op on the model and the real queue and compares the replies. */
class OpCommand implements fc.AsyncCommand<QueueModel, Real> {
  constructor(readonly op: Op) {}
  check(): boolean {
    return true;
  }
  async run(model: QueueModel, real: Real): Promise<void> {
    const op = this.op;
    const q = real.queue;
    const r = real.run;
    switch (op.kind) {
      case 'push':
        agree(await r(q.push(op.messages)), model.push(op.messages), 'push');
        return;
      case 'pop': {
        const got = await r(q.pop(op.count));
        for (const m of got) if (m.token) real.tokens.set(m.id, [...(real.tokens.get(m.id) ?? []), m.token]);
        agree(got.map(leasedReply), model.pop(op.count), 'pop');
        return;
      }
      case 'popWithMsgId': {
        const got = await r(q.popWithMsgId(op.id));
        if (got?.token) real.tokens.set(got.id, [...(real.tokens.get(got.id) ?? []), got.token]);
        agree(got && leasedReply(got), model.popWithMsgId(op.id), 'popWithMsgId');
        return;
      }
      case 'ack': {
        const t = pickToken(real, op);
        agree(await r(q.ack(op.id, t)), model.ack(op.id, t), 'ack');
        return;
      }
      case 'ackAndPop': {
        const t = pickToken(real, op);
        const got = await r(q.ackAndPop(op.id, t, op.count));
        for (const m of got.messages) if (m.token) real.tokens.set(m.id, [...(real.tokens.get(m.id) ?? []), m.token]);
        const acked = model.ack(op.id, t);
        agree(
          { acked: got.acked, messages: got.messages.map(leasedReply) },
          { acked, messages: model.pop(op.count) },
          'ackAndPop',
        );
        return;
      }
      case 'ackMany': {
        const items = op.acks.map((a) => ({ id: a.id, token: pickToken(real, a) }));
        agree(await r(q.ackMany(items)), items.map((a) => model.ack(a.id, a.token)), 'ackMany');
        return;
      }
      case 'ackManyAndPop': {
        const items = op.acks.map((a) => ({ id: a.id, token: pickToken(real, a) }));
        const got = await r(q.ackManyAndPop(items, op.count));
        for (const m of got.messages) if (m.token) real.tokens.set(m.id, [...(real.tokens.get(m.id) ?? []), m.token]);
        const acked = items.map((a) => model.ack(a.id, a.token));
        agree({ acked: got.acked, messages: got.messages.map(leasedReply) }, { acked, messages: model.pop(op.count) }, 'ackManyAndPop');
        return;
      }
      case 'extend': {
        const t = pickToken(real, op);
        agree(await r(q.setUnackTimeout(op.id, op.timeoutMs, t)), model.setUnackTimeout(op.id, op.timeoutMs, t), 'setUnackTimeout');
        return;
      }
      case 'setTimeout':
        agree(await r(q.setTimeout(op.id, op.timeoutMs)), model.setTimeout(op.id, op.timeoutMs), 'setTimeout');
        return;
      case 'remove':
        agree(await r(q.remove(op.id)), model.remove(op.id), 'remove');
        return;
      case 'ensure':
        agree(await r(q.ensure(op.message)), model.ensure(op.message), 'ensure');
        return;
      case 'processUnacks':
        agree(await r(q.processUnacks()), model.processUnacks(), 'processUnacks');
        return;
      case 'get': {
        const got = await r(q.get(op.id));
        const want = model.get(op.id);
        agree(got && { id: got.id, payload: got.payload, timeout: got.timeout, priority: got.priority }, want, 'get');
        return;
      }
      case 'peek':
        agree((await r(q.peek(op.count))).map((m) => m.id), model.peek(op.count), 'peek');
        return;
      case 'size':
        agree(await r(q.size()), model.size(), 'size');
        return;
      case 'advance':
        model.now += op.ms;
        await real.time.advance(op.ms);
        return;
    }
  }
  toString(): string {
    return JSON.stringify(this.op);
  }
}

/** fast-check replays a failing command sequence from seed + path + the sequence's own replayPath. */
const commandsArb = (replayPath?: string) =>
  fc.commands([opArb.map((op) => new OpCommand(op))], { maxCommands: 40, size: 'max', ...(replayPath === undefined ? {} : { replayPath }) });

async function finalStateAgrees(model: QueueModel, real: Real): Promise<void> {
  const sizes = await real.run(real.queue.shardSizes());
  agree(sizes.a, { size: model.size(), uacked: model.unacked() }, 'final shardSizes');
  for (const i of IDS) agree((await real.run(real.queue.get(i)))?.payload ?? null, model.get(i)?.payload ?? null, `final get(${i})`);
}

function modelFor(mode: QueueMode, now: number): QueueModel {
  const m = mode === 'atomic' ? new AtomicModel(UNACK) : new LegacyModel(UNACK);
  m.now = now;
  return m;
}

/**
 * Queue options a user may set for the check. The rest are the check's own: the model is one shard
 * on a hand-driven clock with a 100 ms lease and no background reaper.
 */
export type ModelCheckQueueOptions = Pick<QueueOptionsInput, 'prefix' | 'hashTag' | 'durable' | 'maxPayloadBytes' | 'reaperBatch'>;

function makeQueue(mode: QueueMode, store: Store, time: FakeTime, name: string, extra: ModelCheckQueueOptions): BaseQueue {
  // Lease tokens drawn as the model draws them: one per pop call, counting from 1.
  let tokens = 0;
  const randomId = () => String(++tokens);
  return createQueue({ ...extra, name, mode, quorum: store, clock: time, timers: time, unackInterval: 0, unackTimeout: UNACK, randomId });
}

export interface ModelCheckOptions {
  readonly mode: QueueMode;
  /** A fresh store (and how to await calls on it) per generated sequence. */
  readonly setup: (name: string) => { store: Store; run: Real['run'] };
  readonly runs: number;
  readonly seed?: number;
  /** fast-check's shrink path (with seed): replays the smallest counterexample directly. */
  readonly path?: string;
  /** The counterexample's `replayPath` (printed after it), needed with seed and path to replay a command sequence. */
  readonly replayPath?: string;
  /** Queue names are `${namePrefix}${n}` (default `mb`); each sequence clears its keys at the end. */
  readonly namePrefix?: string;
  /** Options of the queue under test (prefix, hash tag, durable writes…). */
  readonly queueOptions?: ModelCheckQueueOptions;
}

/** Runs the model-based property; throws fast-check's report (seed and replay path) on a mismatch. */
export async function modelCheck({ mode, setup, runs, seed, path, replayPath, namePrefix = 'mb', queueOptions = {} }: ModelCheckOptions): Promise<void> {
  let n = 0;
  await fc.assert(
    fc.asyncProperty(commandsArb(replayPath), async (cmds) => {
      const time = new FakeTime();
      const name = `${namePrefix}${++n}`;
      const { store, run } = setup(name);
      const queue = makeQueue(mode, store, time, name, queueOptions);
      const real: Real = { queue, time, run, tokens: new Map() };
      const model = modelFor(mode, time.now());
      try {
        await fc.asyncModelRun(() => ({ model, real }), cmds);
        await finalStateAgrees(model, real);
      } finally {
        await run(queue.clear());
        await queue.close();
      }
    }),
    { numRuns: runs, ...(seed === undefined ? {} : { seed }), ...(path === undefined ? {} : { path }) },
  );
}

