import fc from 'fast-check';
import { AtomicModel } from '../../model/reference/atomic-model.js';
import type { ModelLeased, ModelMessage, QueueModel } from '../../model/reference/queue-model.js';
import type { AtomicQueue } from '../../queue/atomic-queue.js';
import type { BaseQueue } from '../../queue/base-queue.js';
import type { QueueMode } from '../../queue/dyno-queue.js';
import type { QueueKeys } from '../../queue/keys.js';
import type { PoppedMessage } from '../../queue/message.js';
import { storedMessageJson } from '../../queue/stored-message.js';
import type { Store } from '../../store/store.js';

/**
 * The commands of the model-based check (docs/TESTING.md): each runs one queue call on the real queue and
 * on the reference model and compares the replies. Besides the API calls, three commands damage
 * the store the way a lost write does (a payload lost, a rank lost, a payload with no queue entry),
 * so that the calls that deal with such damage (pops dropping stale ids, findStaleMessages, the
 * reaper, release) are held to the model too; in legacy mode, another client may act between a
 * pop's prefetch read and its claim (the window Dyno's prefetch leaves open). Time moves in steps that land on the deadlines the
 * other commands set (a lease of 100 ms, extensions of 10, delays of 20), where off-by-one changes show.
 */

/** A reply of the queue that differs from the model's: the operation, and both replies as JSON. */
export class ModelDisagreement extends Error {
  constructor(
    readonly operation: string,
    /** The queue's reply (JSON). */
    readonly got: string,
    /** The model's reply (JSON). */
    readonly expected: string,
  ) {
    super(`${operation}: queue replied ${got}, model expects ${expected}`);
    this.name = 'ModelDisagreement';
  }
}

/** Throws a ModelDisagreement when the real reply differs from the model's. */
export function agree(actual: unknown, expected: unknown, what: string): void {
  const a = JSON.stringify(actual);
  const e = JSON.stringify(expected);
  if (a !== e) throw new ModelDisagreement(what, a ?? 'undefined', e ?? 'undefined');
}

export const IDS = ['a', 'b', 'c', 'd'];
/** The shard every push goes to (the queue's own). */
export const LOCAL_SHARD = 'a';

/** The system under test: a real queue, its store and keys, and how to await calls and move time. */
export interface Real {
  readonly queue: BaseQueue;
  readonly store: Store;
  readonly keys: QueueKeys;
  readonly run: <T>(p: Promise<T>) => Promise<T>;
  /** Moves every clock the queue reads (its own, and the server's when it reads that) forward. */
  readonly advance: (ms: number) => Promise<void>;
  /** Tokens handed out so far, per id, oldest first. */
  readonly tokens: Map<string, string[]>;
  /** Legacy: run once right after the prefetch read of the next pop (another client acting before the claim). */
  readonly afterPrefetch: { hook?: () => Promise<void> };
  /** The commands run so far, each with its time (`t+N ms` from the sequence's start): a failure lists them. */
  readonly ran: string[];
  /** Milliseconds since the sequence's start on the queue's clock. */
  readonly elapsed: () => number;
  /**
   * The queue's reaper period, if it has one: time steps stop at each period (`next`, ms from the
   * start) and run the reaper's pass (processUnacks) on the queue and on the model, replies compared.
   */
  readonly reaper?: { readonly interval: number; next: number } | undefined;
}

/** Lua patterns of the predicate calls, each with what it matches in the generated payloads. */
const PATTERNS: readonly { lua: string; matches: (payload: string) => boolean }[] = [
  { lua: 'x', matches: (p) => p.includes('x') },
  { lua: '^hel+o', matches: (p) => /^hel+o/.test(p) },
  { lua: '^y$', matches: (p) => p === 'y' },
  { lua: 'q', matches: (p) => p.includes('q') },
];

type TokenChoice = 'none' | 'latest' | 'oldest';
/** What another client does between a legacy pop's prefetch read and its claim. */
type Race = { kind: 'remove'; id: string } | { kind: 'setTimeout'; id: string; timeoutMs: number } | { kind: 'push'; message: ModelMessage };
type Op =
  | { kind: 'push'; messages: ModelMessage[] }
  | { kind: 'pop'; count: number }
  | { kind: 'bulkPop'; count: number }
  | { kind: 'racedPop'; bulk: boolean; count: number; race: Race }
  | { kind: 'popWithMsgId'; id: string }
  | { kind: 'ack'; id: string; token: TokenChoice }
  | { kind: 'ackAndPop'; id: string; token: TokenChoice; count: number }
  | { kind: 'ackMany'; acks: { id: string; token: TokenChoice }[] }
  | { kind: 'ackManyAndPop'; acks: { id: string; token: TokenChoice }[]; count: number }
  | { kind: 'release'; id: string; token: TokenChoice }
  | { kind: 'extend'; id: string; timeoutMs: number; token: TokenChoice }
  | { kind: 'setTimeout'; id: string; timeoutMs: number }
  | { kind: 'remove'; id: string }
  | { kind: 'atomicRemove'; id: string }
  | { kind: 'ensure'; message: ModelMessage }
  | { kind: 'processUnacks' }
  | { kind: 'atomicProcessUnacks' }
  | { kind: 'promoteDue' }
  | { kind: 'get'; id: string }
  | { kind: 'getUnackTime'; id: string }
  | { kind: 'peek'; count: number }
  | { kind: 'size' }
  | { kind: 'findStale' }
  | { kind: 'getAllMessages' }
  | { kind: 'predicate'; call: 'contains' | 'get'; pattern: number; localShardOnly: boolean }
  | { kind: 'losePayload'; pick: number }
  | { kind: 'loseRank'; pick: number }
  | { kind: 'strayPayload'; message: ModelMessage }
  | { kind: 'advance'; ms: number };

const id = fc.constantFrom(...IDS);
const message = fc.record({
  id,
  payload: fc.constantFrom('x', 'y', 'hello world'),
  timeout: fc.constantFrom(0, 0, 1, 5, 50),
  priority: fc.constantFrom(0, 1, 2, 50),
});
const token = fc.constantFrom<TokenChoice>('none', 'latest', 'oldest', 'oldest');
const count = (max: number) => fc.integer({ min: 1, max });
/** A batch of acks: repeated ids and stale tokens included (each is judged in order). */
const acks = fc.array(fc.record({ id, token }), { maxLength: 3 });
const race: fc.Arbitrary<Race> = fc.oneof(
  id.map((i) => ({ kind: 'remove' as const, id: i })),
  id.map((i) => ({ kind: 'setTimeout' as const, id: i, timeoutMs: 20 })),
  message.map((m) => ({ kind: 'push' as const, message: m })),
);

/** Time steps land on the lease's end (`leaseMs`, 100 by default) and on twice it, besides short ones. */
function opArb(mode: QueueMode, leaseMs: number): fc.Arbitrary<Op> {
  const w = (weight: number, arbitrary: fc.Arbitrary<Op>) => ({ weight, arbitrary });
  const ops = [
    w(4, fc.array(message, { minLength: 1, maxLength: 3 }).map((messages) => ({ kind: 'push' as const, messages }))),
    w(4, count(3).map((n) => ({ kind: 'pop' as const, count: n }))),
    w(mode === 'legacy' ? 2 : 1, count(3).map((n) => ({ kind: 'bulkPop' as const, count: n }))),
    ...(mode === 'legacy' ? [w(2, fc.record({ bulk: fc.boolean(), count: count(3), race }).map((o) => ({ kind: 'racedPop' as const, ...o })))] : []),
    w(1, id.map((i) => ({ kind: 'popWithMsgId' as const, id: i }))),
    w(3, fc.record({ id, token }).map((o) => ({ kind: 'ack' as const, ...o }))),
    w(2, fc.record({ id, token, count: count(2) }).map((o) => ({ kind: 'ackAndPop' as const, ...o }))),
    w(1, acks.map((a) => ({ kind: 'ackMany' as const, acks: a }))),
    w(2, fc.record({ acks, count: count(3) }).map((o) => ({ kind: 'ackManyAndPop' as const, ...o }))),
    w(2, fc.record({ id, token }).map((o) => ({ kind: 'release' as const, ...o }))),
    w(1, fc.record({ id, timeoutMs: fc.constantFrom(10, 300), token }).map((o) => ({ kind: 'extend' as const, ...o }))),
    w(1, fc.record({ id, timeoutMs: fc.constantFrom(0, 1, 20) }).map((o) => ({ kind: 'setTimeout' as const, ...o }))),
    w(1, id.map((i) => ({ kind: 'remove' as const, id: i }))),
    w(1, id.map((i) => ({ kind: 'atomicRemove' as const, id: i }))),
    w(1, message.map((m) => ({ kind: 'ensure' as const, message: m }))),
    w(mode === 'legacy' ? 2 : 3, fc.constant({ kind: 'processUnacks' as const })),
    w(mode === 'legacy' ? 2 : 1, fc.constant({ kind: 'atomicProcessUnacks' as const })),
    ...(mode === 'atomic' ? [w(1, fc.constant({ kind: 'promoteDue' as const }))] : []),
    w(1, id.map((i) => ({ kind: 'get' as const, id: i }))),
    w(1, id.map((i) => ({ kind: 'getUnackTime' as const, id: i }))),
    w(2, count(4).map((n) => ({ kind: 'peek' as const, count: n }))),
    w(1, fc.constant({ kind: 'size' as const })),
    w(2, fc.constant({ kind: 'findStale' as const })),
    w(1, fc.constant({ kind: 'getAllMessages' as const })),
    w(
      2,
      fc
        .record({ call: fc.constantFrom('contains' as const, 'get' as const), pattern: fc.nat(PATTERNS.length - 1), localShardOnly: fc.boolean() })
        .map((o) => ({ kind: 'predicate' as const, ...o })),
    ),
    w(2, fc.nat(3).map((pick) => ({ kind: 'losePayload' as const, pick }))),
    ...(mode === 'atomic' ? [w(1, fc.nat(3).map((pick) => ({ kind: 'loseRank' as const, pick })))] : []),
    w(1, message.map((m) => ({ kind: 'strayPayload' as const, message: m }))),
    w(4, fc.constantFrom(1, 10, 20, 60, leaseMs, 2 * leaseMs).map((ms) => ({ kind: 'advance' as const, ms }))),
  ];
  return fc.oneof(...ops);
}

/** The fields of a popped message the model states. */
function leasedReply(m: PoppedMessage): ModelLeased {
  return { id: m.id, payload: m.payload, ...(m.token ? { token: m.token } : {}), deadline: m.leaseDeadline };
}

function messageReply(m: ModelMessage): ModelMessage {
  return { id: m.id, payload: m.payload, timeout: m.timeout, priority: m.priority };
}

const byId = (a: { id: string }, b: { id: string }) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/** Every stored message, in id order. */
export function sortedMessages(messages: readonly ModelMessage[]): ModelMessage[] {
  return messages.map(messageReply).sort(byId);
}

function raceOnQueue(q: BaseQueue, race: Race): Promise<unknown> {
  if (race.kind === 'remove') return q.remove(race.id);
  if (race.kind === 'setTimeout') return q.setTimeout(race.id, race.timeoutMs);
  return q.push([race.message]);
}

function raceOnModel(model: QueueModel, race: Race): unknown {
  if (race.kind === 'remove') return model.remove(race.id);
  if (race.kind === 'setTimeout') return model.setTimeout(race.id, race.timeoutMs);
  return model.push([race.message]);
}

/** The damage commands pick among the ids that have what they damage (in id order), so that they hit. */
function picked(ids: readonly string[], pick: number): string | undefined {
  return [...ids].sort()[pick % Math.max(1, ids.length)];
}

function pickToken(real: Real, op: { id: string; token: TokenChoice }): string | undefined {
  const seen = real.tokens.get(op.id) ?? [];
  if (op.token === 'none' || seen.length === 0) return undefined;
  return op.token === 'latest' ? seen[seen.length - 1] : seen[0];
}

function recordTokens(real: Real, popped: readonly PoppedMessage[]): void {
  for (const m of popped) if (m.token) real.tokens.set(m.id, [...(real.tokens.get(m.id) ?? []), m.token]);
}

/** One fast-check command: runs the op on the model and the real queue and compares the replies. */
class OpCommand implements fc.AsyncCommand<QueueModel, Real> {
  constructor(readonly op: Op) {}
  check(): boolean {
    return true;
  }
  async run(model: QueueModel, real: Real): Promise<void> {
    real.ran.push(`t+${real.elapsed()} ms ${this.toString()}`);
    await this.runOp(model, real);
  }

  private async runOp(model: QueueModel, real: Real): Promise<void> {
    const op = this.op;
    const q = real.queue;
    const r = real.run;
    switch (op.kind) {
      case 'push':
        agree(await r(q.push(op.messages)), model.push(op.messages), 'push');
        return;
      case 'pop':
      case 'bulkPop': {
        const got = await r(op.kind === 'pop' ? q.pop(op.count) : q.bulkPop(op.count));
        recordTokens(real, got);
        agree(got.map(leasedReply), op.kind === 'pop' ? model.pop(op.count) : model.bulkPop(op.count), op.kind);
        return;
      }
      case 'racedPop': {
        const replies: { real?: unknown; model?: unknown } = {};
        real.afterPrefetch.hook = async () => {
          replies.real = await raceOnQueue(q, op.race);
        };
        const got = await r(op.bulk ? q.bulkPop(op.count) : q.pop(op.count));
        real.afterPrefetch.hook = undefined;
        const racing = () => {
          replies.model = raceOnModel(model, op.race);
        };
        const want = op.bulk ? model.bulkPop(op.count, racing) : model.pop(op.count, racing);
        agree(replies.real, replies.model, `${op.race.kind} between the prefetch and the claim`);
        agree(got.map(leasedReply), want, op.bulk ? 'raced bulkPop' : 'raced pop');
        return;
      }
      case 'popWithMsgId': {
        const got = await r(q.popWithMsgId(op.id));
        if (got) recordTokens(real, [got]);
        agree(got && leasedReply(got), model.popWithMsgId(op.id), 'popWithMsgId');
        return;
      }
      case 'ack':
      case 'release': {
        const t = pickToken(real, op);
        agree(await r(q[op.kind](op.id, t)), model[op.kind](op.id, t), op.kind);
        return;
      }
      case 'ackAndPop': {
        const t = pickToken(real, op);
        const got = await r(q.ackAndPop(op.id, t, op.count));
        recordTokens(real, got.messages);
        const acked = model.ack(op.id, t);
        agree({ acked: got.acked, messages: got.messages.map(leasedReply) }, { acked, messages: model.pop(op.count) }, 'ackAndPop');
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
        recordTokens(real, got.messages);
        const acked = items.map((a) => model.ack(a.id, a.token));
        agree({ acked: got.acked, messages: got.messages.map(leasedReply) }, { acked, messages: model.pop(op.count) }, 'ackManyAndPop');
        return;
      }
      case 'extend': {
        const t = pickToken(real, op);
        agree(await r(q.setUnackTimeout(op.id, op.timeoutMs, t)), model.setUnackTimeout(op.id, op.timeoutMs, t), 'setUnackTimeout');
        // the deadline it wrote, read back
        agree(await r(q.getUnackTime(op.id)), model.unackTime(op.id), 'getUnackTime after setUnackTimeout');
        return;
      }
      case 'setTimeout':
        agree(await r(q.setTimeout(op.id, op.timeoutMs)), model.setTimeout(op.id, op.timeoutMs), 'setTimeout');
        return;
      case 'remove':
        agree(await r(q.remove(op.id)), model.remove(op.id), 'remove');
        return;
      case 'atomicRemove':
        agree(await r(q.atomicRemove(op.id)), model.atomicRemove(op.id), 'atomicRemove');
        return;
      case 'ensure':
        agree(await r(q.ensure(op.message)), model.ensure(op.message), 'ensure');
        return;
      case 'processUnacks':
        agree(await r(q.processUnacks()), model.processUnacks(), 'processUnacks');
        return;
      case 'atomicProcessUnacks':
        agree(await r(q.atomicProcessUnacks()), model.atomicProcessUnacks(), 'atomicProcessUnacks');
        return;
      case 'promoteDue':
        agree(await r((q as AtomicQueue).promoteDue()), model.promoteDue!(), 'promoteDue');
        return;
      case 'get': {
        const got = await r(q.get(op.id));
        agree(got && messageReply(got), model.get(op.id), 'get');
        return;
      }
      case 'getUnackTime':
        agree(await r(q.getUnackTime(op.id)), model.unackTime(op.id), 'getUnackTime');
        return;
      case 'peek':
        agree((await r(q.peek(op.count))).map((m) => m.id), model.peek(op.count), 'peek');
        return;
      case 'size':
        agree(await r(q.size()), model.size(), 'size');
        return;
      case 'findStale':
        agree((await r(q.findStaleMessages())).sort(), model.findStale().sort(), 'findStaleMessages');
        return;
      case 'getAllMessages':
        agree(sortedMessages(await r(q.getAllMessages())), sortedMessages(model.messages()), 'getAllMessages');
        return;
      case 'predicate':
        await this.predicate(model, real, op);
        return;
      case 'losePayload': {
        const i = picked(model.messages().map((m) => m.id), op.pick);
        if (i === undefined) return;
        await r(real.store.hdel(real.keys.message, [i]));
        model.losePayload(i);
        return;
      }
      case 'loseRank': {
        if (!(model instanceof AtomicModel)) throw new Error('loseRank is an atomic-mode command');
        const i = picked(model.rankedIds(), op.pick);
        if (i === undefined) return;
        await r(real.store.hdel(real.keys.meta, [i]));
        model.loseRank(i);
        return;
      }
      case 'strayPayload':
        await r(real.store.hset(real.keys.message, op.message.id, storedMessageJson({ ...op.message, shard: LOCAL_SHARD })));
        model.strayPayload(op.message);
        return;
      case 'advance': {
        let left = op.ms;
        for (const reaper = real.reaper; reaper && reaper.next - real.elapsed() <= left; reaper.next += reaper.interval) {
          const step = reaper.next - real.elapsed();
          model.now += step;
          await real.advance(step);
          left -= step;
          agree(await r(q.processUnacks()), model.processUnacks(), `the reaper's pass at t+${reaper.next} ms (processUnacks)`);
        }
        model.now += left;
        await real.advance(left);
        return;
      }
    }
  }

  /**
   * The predicate calls match in the order the store's scan yields entries, which the model does not
   * state: a reply must be one of the messages that match (on the local shard's queue, if asked).
   */
  private async predicate(model: QueueModel, real: Real, op: Extract<Op, { kind: 'predicate' }>): Promise<void> {
    const { lua, matches } = PATTERNS[op.pattern]!;
    const queued = new Set(model.queuedIds());
    const candidates = model
      .messages()
      .filter((m) => matches(m.payload) && (!op.localShardOnly || queued.has(m.id)))
      .map((m) => m.id);
    const what = `${op.call}Predicate(${JSON.stringify(lua)}, ${op.localShardOnly})`;
    if (op.call === 'contains') {
      agree(await real.run(real.queue.containsPredicate(lua, op.localShardOnly)), candidates.length > 0, what);
      return;
    }
    const got = await real.run(real.queue.getMsgWithPredicate(lua, op.localShardOnly));
    if (got === null) agree(null, candidates.length === 0 ? null : `one of ${candidates.join(', ')}`, what);
    else if (!candidates.includes(got.id)) agree(got.id, `one of ${candidates.join(', ') || 'none'}`, what);
    else agree(messageReply(got), model.get(got.id), what);
  }

  toString(): string {
    return JSON.stringify(this.op);
  }
}

/** fast-check replays a failing command sequence from seed + path + the sequence's own replayPath. */
export const commandsArb = (mode: QueueMode, replayPath?: string, leaseMs = 100) =>
  fc.commands([opArb(mode, leaseMs).map((op) => new OpCommand(op))], { maxCommands: 80, size: 'max', ...(replayPath === undefined ? {} : { replayPath }) });
