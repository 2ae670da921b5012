import type { CallPart, CallResult, Delivered, PushedMessage } from './call-operations.js';
import type { Outcome } from './history.js';

/*
 * What each public queue method's call and return become in a history: one entry per method, read
 * by the user's recorder (dynoq/testing recordHistory) and by the simulator's workload drivers alike.
 * The model does not import the queue, so the table is typed against a structural description of
 * its API (QueueCalls); each reader checks the table against the real interface with
 * `HistoryTableOf<DynoQueue>`, which fails to compile when a public method has no entry, an entry
 * names no method, or an entry no longer fits its method's arguments and reply.
 */

/** A message as the caller hands it to push or ensure: what the history reads of it. */
interface SentMessage {
  readonly id: string;
  readonly timeout?: number;
  readonly priority?: number;
}

/** A message a pop returned. */
interface LeasedMessage {
  readonly id: string;
  readonly shard: string;
}

interface AckItem {
  readonly id: string;
  readonly token?: string | undefined;
}

/**
 * The queue's calls that the history records, as it sees them: the model's structural view of
 * DynoQueue (its other methods are in UNRECORDED, by name only).
 */
export interface QueueCalls {
  push(messages: readonly SentMessage[]): Promise<unknown>;
  ensure(message: SentMessage): Promise<boolean>;
  pop(count: number, options?: unknown): Promise<readonly LeasedMessage[] & { readonly keptBack?: readonly string[] }>;
  bulkPop(count: number, options?: unknown): Promise<readonly LeasedMessage[] & { readonly keptBack?: readonly string[] }>;
  popWithMsgId(id: string): Promise<LeasedMessage | null>;
  popMsgWithPredicate(luaPattern: string, localShardOnly?: boolean): Promise<LeasedMessage | null>;
  ack(id: string, token?: string): Promise<boolean>;
  ackMany(items: readonly AckItem[]): Promise<readonly boolean[]>;
  release(id: string, token?: string): Promise<boolean>;
  ackAndPop(id: string, token: string | undefined, count: number): Promise<{ readonly acked: boolean; readonly messages: readonly LeasedMessage[] }>;
  ackManyAndPop(items: readonly AckItem[], count: number): Promise<{ readonly acked: readonly boolean[]; readonly messages: readonly LeasedMessage[] }>;
  setUnackTimeout(id: string, timeoutMs: number, token?: string): Promise<boolean>;
  setTimeout(id: string, timeoutMs: number): Promise<boolean>;
  remove(id: string, token?: string): Promise<boolean>;
  atomicRemove(id: string): Promise<boolean>;
  consume(options?: unknown): AsyncIterable<LeasedMessage>;
}

/** The names of an interface's methods. */
export type MethodOf<Q> = { [K in keyof Q]-?: Q[K] extends (...args: never[]) => unknown ? K : never }[keyof Q];

/** Where and when a call is made: what its operations need beyond its arguments. */
export interface CallSite {
  /** When the call was made, on the history's clock. */
  readonly invokedAt: number;
  /** The queue's lease length (ms): a delivery is leased until invokedAt + leaseMs. */
  readonly leaseMs: number;
  /** The shard pop, bulkPop and consume take from, when the recorder knows it. */
  readonly localShard: string | undefined;
}

/** A call's reply read: its outcome (ok, or fail for a definite refusal such as `false`) and what it said. */
export interface ReadReply {
  readonly outcome: Outcome;
  readonly result: CallResult;
}

/** A method whose call is operations of the history. */
export interface RecordedCall<A extends readonly unknown[], R> {
  readonly records: 'call';
  /** What the call may do, from its arguments (a call with bad arguments may have no part). */
  parts(args: A, site: CallSite): readonly CallPart[];
  /** What its reply says. A throw is not read here: its outcome is the recorder's to judge (docs/CHECKER.md §1.2). */
  reply(value: R, args: A, site: CallSite): ReadReply;
}

/** A loop of calls: each step is recorded as the call `stepsAs` names; the loop itself is no operation. */
export interface RecordedLoop {
  readonly records: 'steps';
  readonly stepsAs: 'pop';
  /** What leaving the loop early does with the messages it leased and did not yield. */
  readonly leftAs: 'release';
}

/** A method the history does not record (a read, housekeeping), and why. */
export interface Unrecorded {
  readonly records: 'nothing';
  readonly why: string;
}

export type MethodHistory<A extends readonly unknown[], R> = RecordedCall<A, R> | RecordedLoop | Unrecorded;

/** One entry per method of Q. */
export type HistoryTable<Q> = {
  readonly [M in MethodOf<Q>]: Q[M] extends (...args: infer A) => infer R ? MethodHistory<A, Awaited<R>> : never;
};

// ——— reading arguments as the queue would (a call with bad arguments is refused; its parts are what can be read) ———

const isId = (id: unknown): id is string => typeof id === 'string' && id !== '';
const isMs = (ms: unknown): ms is number => typeof ms === 'number' && Number.isFinite(ms);

/** A sent message as recorded: a delay that is no number of ms is 0, a priority outside 0–99 is 0. */
function pushed(messages: unknown): PushedMessage[] {
  if (!Array.isArray(messages)) return [];
  return messages.flatMap((m: Partial<SentMessage> | null) => {
    if (typeof m !== 'object' || m === null || !isId(m.id)) return [];
    const delayMs = isMs(m.timeout) && m.timeout >= 0 ? m.timeout : 0;
    const priority = Number.isInteger(m.priority) && m.priority! >= 0 && m.priority! <= 99 ? m.priority! : 0;
    return [{ id: m.id, delayMs, priority }];
  });
}

/** The ids of ack items that have one, with whether each was acked (in the same order). */
function ackPart(items: unknown): CallPart[] {
  if (!Array.isArray(items)) return [];
  return [{ type: 'ack', ids: items.map((i: Partial<AckItem> | null) => i?.id).filter(isId) }];
}
function ackedOf(items: readonly Partial<AckItem>[], acked: readonly boolean[]): boolean[] {
  return items.flatMap((item, i) => (isId(item?.id) ? [acked[i] === true] : []));
}

const scheduledPop = (site: CallSite): CallPart => ({ type: 'pop', via: 'schedule', ...(site.localShard !== undefined ? { shard: site.localShard } : {}) });
const onIds = (type: 'ack' | 'release' | 'remove', id: unknown): CallPart[] => (isId(id) ? [{ type, ids: [id] }] : []);
const delivered = (messages: readonly (LeasedMessage | null)[], site: CallSite): Delivered[] =>
  messages.flatMap((m) => (m ? [{ id: m.id, shard: m.shard, leaseUntil: site.invokedAt + site.leaseMs }] : []));
const trueIsOk = (value: boolean): ReadReply => ({ outcome: value ? 'ok' : 'fail', result: {} });
/**
 * A pop's reply: ok, or unknown when it came back with a store error after leasing (PoppedBatch.error):
 * the attempt that failed may have leased more to nobody, and the pop did not just wait. The ids it
 * leased and kept back (PoppedBatch.keptBack: their lease may have run out before its reply) are
 * leases to nobody, each a `kept-back` operation.
 */
const popped = (messages: readonly (LeasedMessage | null)[], site: CallSite): ReadReply => {
  const keptBack = (messages as { keptBack?: readonly string[] }).keptBack;
  return {
    outcome: Object.hasOwn(messages, 'error') ? 'unknown' : 'ok',
    result: { delivered: delivered(messages, site), ...(keptBack && keptBack.length > 0 ? { keptBack: { ids: keptBack, leaseMs: site.leaseMs } } : {}) },
  };
};

const READ = 'a read: it changes nothing';

/**
 * What each recorded queue call and its reply become in the history (docs/CHECKER.md §1.1). The two
 * recorders add what only they know: the shard the queue picked for a pushed message, the outcome of
 * a throw, and (the simulator's) whether the reply was a Dynomite vote, which makes a refusal unknown.
 */
const RECORDED = {
  push: { records: 'call', parts: ([messages]) => [{ type: 'push', messages: pushed(messages) }], reply: () => ({ outcome: 'ok', result: {} }) },
  ensure: {
    records: 'call',
    parts: ([message]) => [{ type: 'ensure', messages: pushed([message]) }],
    reply: (created) => ({ outcome: 'ok', result: { created } }),
  },
  pop: { records: 'call', parts: (_, site) => [scheduledPop(site)], reply: (messages, _, site) => popped(messages, site) },
  bulkPop: { records: 'call', parts: (_, site) => [scheduledPop(site)], reply: (messages, _, site) => popped(messages, site) },
  popWithMsgId: { records: 'call', parts: ([id]) => [{ type: 'pop', via: 'id', ...(isId(id) ? { id } : {}) }], reply: (m, _, site) => popped([m], site) },
  popMsgWithPredicate: {
    records: 'call',
    parts: ([, localShardOnly], site) => [{ type: 'pop', via: 'predicate', ...(localShardOnly && site.localShard !== undefined ? { shard: site.localShard } : {}) }],
    reply: (m, _, site) => popped([m], site),
  },
  ack: { records: 'call', parts: ([id]) => onIds('ack', id), reply: trueIsOk },
  ackMany: { records: 'call', parts: ([items]) => ackPart(items), reply: (acked, [items]) => ({ outcome: 'ok', result: { acked: ackedOf(items, acked) } }) },
  release: { records: 'call', parts: ([id]) => onIds('release', id), reply: trueIsOk },
  ackAndPop: {
    records: 'call',
    parts: ([id], site) => [...onIds('ack', id), scheduledPop(site)],
    reply: (r, _, site) => ({ outcome: 'ok', result: { acked: [r.acked], delivered: delivered(r.messages, site) } }),
  },
  ackManyAndPop: {
    records: 'call',
    parts: ([items], site) => [...ackPart(items), scheduledPop(site)],
    reply: (r, [items], site) => ({ outcome: 'ok', result: { acked: ackedOf(items, r.acked), delivered: delivered(r.messages, site) } }),
  },
  setUnackTimeout: {
    records: 'call',
    parts: ([id, timeoutMs], site) => (isId(id) && isMs(timeoutMs) ? [{ type: 'extend', id, leaseUntil: site.invokedAt + timeoutMs }] : []),
    reply: trueIsOk,
  },
  setTimeout: {
    records: 'call',
    parts: ([id, timeoutMs]) => (isId(id) && isMs(timeoutMs) && timeoutMs >= 0 ? [{ type: 'reschedule', id, delayMs: timeoutMs }] : []),
    reply: trueIsOk,
  },
  remove: { records: 'call', parts: ([id]) => onIds('remove', id), reply: trueIsOk },
  atomicRemove: { records: 'call', parts: ([id]) => onIds('remove', id), reply: trueIsOk },
  consume: { records: 'steps', stepsAs: 'pop', leftAs: 'release' },
} satisfies HistoryTable<QueueCalls>;

/** The methods the history does not record, and why. */
const UNRECORDED = {
  peek: { records: 'nothing', why: READ },
  getUnackTime: { records: 'nothing', why: READ },
  containsPredicate: { records: 'nothing', why: READ },
  getMsgWithPredicate: { records: 'nothing', why: READ },
  get: { records: 'nothing', why: READ },
  localGet: { records: 'nothing', why: READ },
  getAllMessages: { records: 'nothing', why: READ },
  size: { records: 'nothing', why: READ },
  shardSizes: { records: 'nothing', why: READ },
  findStaleMessages: { records: 'nothing', why: READ },
  clear: { records: 'nothing', why: 'housekeeping: it deletes every message, after which no delivery property can be judged' },
  processUnacks: { records: 'nothing', why: 'housekeeping: the re-queue pass; its work shows as later deliveries' },
  atomicProcessUnacks: { records: 'nothing', why: 'housekeeping: the re-queue pass; its work shows as later deliveries' },
  close: { records: 'nothing', why: 'housekeeping: the queue stops taking calls; acks and releases still work' },
} satisfies Record<string, Unrecorded>;

/** Every public queue method and what its call becomes in the history: one entry each. */
export const METHOD_HISTORY = { ...RECORDED, ...UNRECORDED };

/**
 * The table checked against a queue interface Q: every method of Q has an entry that fits its
 * arguments and reply, and every entry names a method of Q. `const t: HistoryTableOf<DynoQueue> =
 * METHOD_HISTORY` fails to compile otherwise.
 */
export type HistoryTableOf<Q> = HistoryTable<Q> & { readonly [K in Exclude<keyof typeof METHOD_HISTORY, MethodOf<Q>>]: never };

/** The methods whose calls are operations of the history (each step of a loop is one of them). */
export type RecordedMethod = { [M in keyof typeof METHOD_HISTORY]: (typeof METHOD_HISTORY)[M] extends { readonly records: 'call' } ? M : never }[keyof typeof METHOD_HISTORY];
