import type { DeliveryVia, HistoryOp, Outcome } from '../model/history.js';
import { HISTORY_FORMAT_VERSION } from '../model/history.js';
import type { AckAndPop, AckItem, AckManyAndPop, ConsumeOptions, DynoQueue, PopOptions, QueueMode, ShardSize } from '../queue/dyno-queue.js';
import { InvalidArgumentError } from '../queue/errors.js';
import type { Message, MessageInput, PoppedMessage } from '../queue/message.js';
import type { PoppedBatch } from '../queue/popped-batch.js';
import { recordingHooksOf, type RecordingHooks, type ShardListener } from '../queue/recording-hooks.js';

/**
 * Where a recorder writes its history: a function given each line (one JSON object, no newline),
 * or a writable stream (anything with `write(string)`; each line is written with its newline).
 */
export type HistorySink = ((line: string) => void) | { write(chunk: string): unknown };

export interface RecordHistoryOptions {
  /** The client name on every operation (default `client-<pid>`); `as(name)` records another client. */
  readonly process?: string;
  /** The clock of the history, in ms (default Date.now): one clock for every recorder of a history. */
  readonly clock?: () => number;
  /** The queue's lease length in ms (default: read from a dynoq queue; required for any other DynoQueue). */
  readonly unackTimeoutMs?: number;
  /**
   * The `run` line written first (format version, reaper period, recovery and delivery bounds), or
   * false to write none — for every recorder but one when several share a sink. Default: the
   * version and the queue's reaper period.
   */
  readonly run?: false | RunLineSettings;
}

/** The checker settings a `run` line may carry (see "Judging your own history" in the README). */
export interface RunLineSettings {
  readonly reaperIntervalMs?: number;
  readonly recoveryBoundMs?: number;
  readonly deliveryBoundMs?: number;
  readonly livenessStart?: number;
  readonly end?: number;
}

/** A queue whose public calls are written to a history; use it exactly as the queue it wraps. */
export interface RecordedQueue extends DynoQueue {
  /** The client its operations are recorded as. */
  readonly process: string;
  /** The same queue and history, recorded as another client (give each concurrent consumer its own). */
  as(process: string): RecordedQueue;
  /**
   * Ends the history (for every client of this recorder): writes each call still in flight as
   * unknown (no `completedAt`), then the `end` line; records nothing afterwards and stops observing
   * the wrapped queue's shard picks (the queue itself stays open). Done once; also done when the
   * process exits — through a function sink that writes synchronously, a process that dies of an
   * uncaught exception or calls `process.exit` still ends its history.
   */
  stopRecording(): void;
}

/** Validation refusals: thrown before anything was sent, so the call had no effect. */
const REFUSED_BEFORE_SENDING = new Set(['INVALID_MESSAGE', 'INVALID_ARGUMENT', 'QUEUE_CLOSED', 'PATTERN_TOO_COMPLEX']);

/**
 * The outcome of a call that threw (docs/CHECKER.md §1.2): a validation refusal, a closed queue or a pattern
 * over its budget is `fail` (nothing was written); anything else — a store error, a timeout, a
 * DurabilityError — may have applied, so it is `unknown`. A recorder outside the store cannot
 * tell whether a failed request left the client, so it never claims it did not.
 */
export function outcomeOfThrow(err: unknown): Outcome {
  const code = typeof err === 'object' && err !== null ? (err as { code?: unknown }).code : undefined;
  return typeof code === 'string' && REFUSED_BEFORE_SENDING.has(code) ? 'fail' : 'unknown';
}

/** A call made and not yet returned: records it as unknown, in flight, if the history ends first. */
type PendingCall = () => void;

/** Recordings not yet stopped: the process's exit ends each (one listener for all of them). */
const live = new Set<Recording>();
let exitListener = false;
function endAtExit(recording: Recording): void {
  live.add(recording);
  if (exitListener || typeof globalThis.process?.on !== 'function') return;
  exitListener = true;
  globalThis.process.on('exit', () => {
    for (const r of [...live]) {
      try {
        r.stop();
      } catch {
        // A sink already closed cannot take the end: the history then ends at its last line.
      }
    }
  });
}

class Recording {
  private readonly picked = new Map<string, string>();
  private readonly listener: ShardListener = (id, shard) => void this.picked.set(id, shard);
  private readonly pending = new Set<PendingCall>();
  private stopped = false;
  /** While the calls in flight are written at the end: their lines carry no completedAt. */
  private endingInFlight = false;
  readonly write: (line: string) => void;

  constructor(
    readonly queue: DynoQueue,
    sink: HistorySink,
    readonly clock: () => number,
    readonly unackTimeoutMs: number,
    readonly hooks: RecordingHooks | undefined,
  ) {
    if (typeof sink === 'function') this.write = sink;
    else this.write = (line) => void sink.write(`${line}\n`);
    hooks?.shardPicked.add(this.listener);
    endAtExit(this);
  }

  /** Calls in flight are written as unknown with no completedAt, then the end line; nothing after. */
  stop(): void {
    if (this.stopped) return;
    this.hooks?.shardPicked.delete(this.listener);
    live.delete(this);
    this.endingInFlight = true;
    for (const call of this.pending) call();
    this.pending.clear();
    this.endingInFlight = false;
    this.write(JSON.stringify({ type: 'end', at: this.clock() }));
    this.stopped = true;
  }

  /** Notes a call in flight (undo with the returned function when it returns). */
  begin(call: PendingCall): () => void {
    this.pending.add(call);
    return () => void this.pending.delete(call);
  }

  record(op: HistoryOp): void {
    if (this.stopped) return;
    if (this.endingInFlight) {
      const { completedAt: _returned, ...inFlight } = op;
      this.write(JSON.stringify({ ...inFlight, outcome: op.type === 'deliver' ? op.outcome : 'unknown' }));
      return;
    }
    this.write(JSON.stringify(op));
  }

  /** The shard the strategy picked for `id` in the call that just ended (undefined for a foreign queue). */
  takeShard(id: string): string | undefined {
    const shard = this.picked.get(id);
    this.picked.delete(id);
    return shard;
  }
}

const sinkProblem = (sink: unknown): string | undefined =>
  typeof sink === 'function' || (typeof sink === 'object' && sink !== null && typeof (sink as { write?: unknown }).write === 'function')
    ? undefined
    : 'must be a function receiving lines or a writable stream';

/**
 * Records every public call made through the returned queue as operations of a history (format
 * version 2, one JSON line each; README "Recording a history"): push / ensure with delay,
 * priority and the shard picked, a `pop` line for every pop call and a `deliver` line for every
 * message it returned (with how it was popped, its shard and its lease: pop invocation + the
 * queue's unack timeout), ack / extend / reschedule / release / remove with their outcomes (ok;
 * fail for a refusal: false returned, a validation error; unknown when the call may have applied),
 * combined calls (ackAndPop, ackManyAndPop, consume) as their parts. Reads pass through unrecorded.
 * Throws InvalidArgumentError for a bad sink, clock, process or lease length.
 */
export function recordHistory(queue: DynoQueue, sink: HistorySink, options: RecordHistoryOptions = {}): RecordedQueue {
  if (typeof queue !== 'object' || queue === null || typeof (queue as { pop?: unknown }).pop !== 'function') {
    throw new InvalidArgumentError('queue', 'must be a dynoq queue (createQueue, createMultiQueue or another DynoQueue)');
  }
  const problem = sinkProblem(sink);
  if (problem) throw new InvalidArgumentError('sink', problem);
  const clock = options.clock ?? Date.now;
  if (typeof clock !== 'function') throw new InvalidArgumentError('clock', 'must be a function returning ms');
  const hooks = recordingHooksOf(queue);
  const lease = options.unackTimeoutMs ?? hooks?.unackTimeoutMs;
  if (lease === undefined) throw new InvalidArgumentError('unackTimeoutMs', 'must be given for a queue not built by dynoq (the lease length of its pops)');
  if (typeof lease !== 'number' || !Number.isFinite(lease) || lease <= 0) throw new InvalidArgumentError('unackTimeoutMs', 'must be a positive number of ms');
  const process = checkProcess(options.process ?? `client-${globalThis.process?.pid ?? 1}`);
  const recording = new Recording(queue, sink, clock, lease, hooks);
  if (options.run !== false) {
    const run = options.run ?? {};
    const reaperIntervalMs = run.reaperIntervalMs ?? (hooks && hooks.reaperIntervalMs > 0 ? hooks.reaperIntervalMs : undefined);
    recording.write(JSON.stringify({ type: 'run', version: HISTORY_FORMAT_VERSION, ...run, ...(reaperIntervalMs !== undefined ? { reaperIntervalMs } : {}) }));
  }
  return new RecordingQueue(recording, process);
}

function checkProcess(process: unknown): string {
  if (typeof process !== 'string' || process.length === 0) throw new InvalidArgumentError('process', 'must be a non-empty string');
  return process;
}

/** A call's time and client: every operation of the call carries them. */
interface CallBase {
  readonly process: string;
  readonly invokedAt: number;
  readonly completedAt: number;
}

type PopPart = { readonly via: DeliveryVia; readonly shard?: string; readonly id?: string };

class RecordingQueue implements RecordedQueue {
  readonly name: string;
  readonly mode: QueueMode;

  constructor(
    private readonly rec: Recording,
    readonly process: string,
  ) {
    this.name = rec.queue.name;
    this.mode = rec.queue.mode;
  }

  private get q(): DynoQueue {
    return this.rec.queue;
  }

  as(process: string): RecordedQueue {
    return new RecordingQueue(this.rec, checkProcess(process));
  }

  stopRecording(): void {
    this.rec.stop();
  }

  /** Runs a call; `done` records it with the call's base and its outcome (ok with the value, or the thrown error's). */
  private async call<T>(run: () => Promise<T>, done: (base: CallBase, result: { ok: true; value: T } | { ok: false; outcome: Outcome }) => void): Promise<T> {
    const invokedAt = this.rec.clock();
    // Still in flight when the history ends (stopRecording, the process exiting): unknown, no completedAt.
    const returned = this.rec.begin(() => done({ process: this.process, invokedAt, completedAt: invokedAt }, { ok: false, outcome: 'unknown' }));
    let value: T;
    try {
      value = await run();
    } catch (err) {
      returned();
      done({ process: this.process, invokedAt, completedAt: this.rec.clock() }, { ok: false, outcome: outcomeOfThrow(err) });
      throw err;
    }
    returned();
    done({ process: this.process, invokedAt, completedAt: this.rec.clock() }, { ok: true, value });
    return value;
  }

  private pushed(type: 'push' | 'ensure', base: CallBase, messages: readonly MessageInput[], outcome: Outcome, created?: boolean): void {
    if (!Array.isArray(messages)) return;
    for (const m of messages) {
      if (typeof m !== 'object' || m === null || typeof m.id !== 'string' || m.id === '') continue;
      const shard = this.rec.takeShard(m.id);
      const delayMs = typeof m.timeout === 'number' && Number.isFinite(m.timeout) && m.timeout >= 0 ? m.timeout : 0;
      const priority = Number.isInteger(m.priority) && m.priority! >= 0 && m.priority! <= 99 ? m.priority! : 0;
      const where = { delayMs, priority, ...(shard !== undefined ? { shard } : {}) };
      if (type === 'push') this.rec.record({ type, ...base, id: m.id, outcome, ...where });
      else this.rec.record({ type, ...base, id: m.id, outcome, ...where, ...(outcome === 'ok' && created !== undefined ? { created } : {}) });
    }
  }

  /** A pop call: a deliver line per message it returned (ok whatever else the call did), then the pop line. */
  private popped(base: CallBase, part: PopPart, messages: readonly PoppedMessage[], outcome: Outcome): void {
    for (const m of messages) {
      this.rec.record({ type: 'deliver', ...base, id: m.id, outcome: 'ok', leaseUntil: base.invokedAt + this.rec.unackTimeoutMs, via: part.via, shard: m.shard });
    }
    this.rec.record({
      type: 'pop',
      ...base,
      outcome: messages.length > 0 ? 'ok' : outcome,
      via: part.via,
      ...(part.shard !== undefined ? { shard: part.shard } : {}),
      ...(part.id !== undefined ? { id: part.id } : {}),
      delivered: messages.length,
    });
  }

  private simple(type: 'ack' | 'release' | 'remove', base: CallBase, id: unknown, outcome: Outcome): void {
    if (typeof id === 'string' && id !== '') this.rec.record({ type, ...base, id, outcome });
  }

  private get scheduled(): PopPart {
    const shard = this.rec.hooks?.localShard;
    return { via: 'schedule', ...(shard !== undefined ? { shard } : {}) };
  }

  private acks(base: CallBase, items: readonly AckItem[], acked: readonly boolean[] | Outcome): void {
    if (!Array.isArray(items)) return;
    items.forEach((item, i) => this.simple('ack', base, item?.id, typeof acked === 'string' ? acked : acked[i] ? 'ok' : 'fail'));
  }

  // ——— recorded calls ———

  push(messages: readonly MessageInput[]): Promise<string[]> {
    return this.call(
      () => this.q.push(messages),
      (base, r) => this.pushed('push', base, messages, r.ok ? 'ok' : r.outcome),
    );
  }

  ensure(message: MessageInput): Promise<boolean> {
    return this.call(
      () => this.q.ensure(message),
      (base, r) => this.pushed('ensure', base, [message], r.ok ? 'ok' : r.outcome, r.ok ? r.value : undefined),
    );
  }

  pop(count: number, options?: PopOptions): Promise<PoppedBatch> {
    return this.call(
      () => this.q.pop(count, options),
      (base, r) => this.popped(base, this.scheduled, r.ok ? r.value : [], r.ok ? (Object.hasOwn(r.value, 'error') ? 'unknown' : 'ok') : r.outcome),
    );
  }

  bulkPop(count: number, options?: PopOptions): Promise<PoppedBatch> {
    return this.call(
      () => this.q.bulkPop(count, options),
      (base, r) => this.popped(base, this.scheduled, r.ok ? r.value : [], r.ok ? (Object.hasOwn(r.value, 'error') ? 'unknown' : 'ok') : r.outcome),
    );
  }

  popWithMsgId(id: string): Promise<PoppedMessage | null> {
    return this.call(
      () => this.q.popWithMsgId(id),
      (base, r) => this.popped(base, { via: 'id', ...(typeof id === 'string' && id !== '' ? { id } : {}) }, r.ok && r.value ? [r.value] : [], r.ok ? 'ok' : r.outcome),
    );
  }

  popMsgWithPredicate(luaPattern: string, localShardOnly?: boolean): Promise<PoppedMessage | null> {
    const shard = localShardOnly ? this.rec.hooks?.localShard : undefined;
    return this.call(
      () => this.q.popMsgWithPredicate(luaPattern, localShardOnly),
      (base, r) => this.popped(base, { via: 'predicate', ...(shard !== undefined ? { shard } : {}) }, r.ok && r.value ? [r.value] : [], r.ok ? 'ok' : r.outcome),
    );
  }

  ack(id: string, token?: string): Promise<boolean> {
    return this.call(
      () => this.q.ack(id, token),
      (base, r) => this.simple('ack', base, id, r.ok ? (r.value ? 'ok' : 'fail') : r.outcome),
    );
  }

  ackMany(items: readonly AckItem[]): Promise<boolean[]> {
    return this.call(
      () => this.q.ackMany(items),
      (base, r) => this.acks(base, items, r.ok ? r.value : r.outcome),
    );
  }

  release(id: string, token?: string): Promise<boolean> {
    return this.call(
      () => this.q.release(id, token),
      (base, r) => this.simple('release', base, id, r.ok ? (r.value ? 'ok' : 'fail') : r.outcome),
    );
  }

  ackAndPop(id: string, token: string | undefined, count: number): Promise<AckAndPop> {
    return this.call(
      () => this.q.ackAndPop(id, token, count),
      (base, r) => {
        this.simple('ack', base, id, r.ok ? (r.value.acked ? 'ok' : 'fail') : r.outcome);
        this.popped(base, this.scheduled, r.ok ? r.value.messages : [], r.ok ? 'ok' : r.outcome);
      },
    );
  }

  ackManyAndPop(items: readonly AckItem[], count: number): Promise<AckManyAndPop> {
    return this.call(
      () => this.q.ackManyAndPop(items, count),
      (base, r) => {
        this.acks(base, items, r.ok ? r.value.acked : r.outcome);
        this.popped(base, this.scheduled, r.ok ? r.value.messages : [], r.ok ? 'ok' : r.outcome);
      },
    );
  }

  setUnackTimeout(id: string, timeoutMs: number, token?: string): Promise<boolean> {
    return this.call(
      () => this.q.setUnackTimeout(id, timeoutMs, token),
      (base, r) => {
        if (typeof id !== 'string' || id === '' || typeof timeoutMs !== 'number' || !Number.isFinite(timeoutMs)) return;
        this.rec.record({ type: 'extend', ...base, id, outcome: r.ok ? (r.value ? 'ok' : 'fail') : r.outcome, leaseUntil: base.invokedAt + timeoutMs });
      },
    );
  }

  setTimeout(id: string, timeoutMs: number): Promise<boolean> {
    return this.call(
      () => this.q.setTimeout(id, timeoutMs),
      (base, r) => {
        if (typeof id !== 'string' || id === '' || typeof timeoutMs !== 'number' || !Number.isFinite(timeoutMs) || timeoutMs < 0) return;
        this.rec.record({ type: 'reschedule', ...base, id, outcome: r.ok ? (r.value ? 'ok' : 'fail') : r.outcome, delayMs: timeoutMs });
      },
    );
  }

  remove(id: string): Promise<boolean> {
    return this.call(
      () => this.q.remove(id),
      (base, r) => this.simple('remove', base, id, r.ok ? (r.value ? 'ok' : 'fail') : r.outcome),
    );
  }

  atomicRemove(id: string): Promise<boolean> {
    return this.call(
      () => this.q.atomicRemove(id),
      (base, r) => this.simple('remove', base, id, r.ok ? (r.value ? 'ok' : 'fail') : r.outcome),
    );
  }

  /**
   * The queue's consume loop, made of recorded pops and releases: each batch is a pop call (a `pop`
   * line and its deliveries); leaving the loop early releases the batch's messages not yet yielded.
   */
  async *consume(options: ConsumeOptions = {}): AsyncIterableIterator<PoppedMessage> {
    if (typeof options !== 'object' || options === null) throw new InvalidArgumentError('consume options', 'must be an object');
    const batch = options.batch ?? 1;
    const wait = options.wait ?? 1_000;
    let pending: PoppedMessage[] = [];
    try {
      while (!options.signal?.aborted && !isClosed(this.q)) {
        const popped = await this.pop(batch, { wait, ...(options.signal ? { signal: options.signal } : {}) });
        pending = [...popped];
        while (pending.length > 0) yield pending.shift()!;
        if (Object.hasOwn(popped, 'error')) throw popped.error;
      }
    } finally {
      for (const m of pending.splice(0)) await this.release(m.id, m.token).catch(() => undefined);
    }
  }

  // ——— reads and housekeeping: not operations of the history ———

  peek(count: number): Promise<Message[]> {
    return this.q.peek(count);
  }
  getUnackTime(id: string): Promise<number | null> {
    return this.q.getUnackTime(id);
  }
  containsPredicate(luaPattern: string, localShardOnly?: boolean): Promise<boolean> {
    return this.q.containsPredicate(luaPattern, localShardOnly);
  }
  getMsgWithPredicate(luaPattern: string, localShardOnly?: boolean): Promise<Message | null> {
    return this.q.getMsgWithPredicate(luaPattern, localShardOnly);
  }
  get(id: string): Promise<Message | null> {
    return this.q.get(id);
  }
  localGet(id: string): Promise<Message | null> {
    return this.q.localGet(id);
  }
  getAllMessages(): Promise<Message[]> {
    return this.q.getAllMessages();
  }
  size(): Promise<number> {
    return this.q.size();
  }
  shardSizes(): Promise<Record<string, ShardSize>> {
    return this.q.shardSizes();
  }
  clear(): Promise<void> {
    return this.q.clear();
  }
  processUnacks(): Promise<number> {
    return this.q.processUnacks();
  }
  atomicProcessUnacks(): Promise<number> {
    return this.q.atomicProcessUnacks();
  }
  findStaleMessages(): Promise<string[]> {
    return this.q.findStaleMessages();
  }
  close(): Promise<void> {
    return this.q.close();
  }
}

function isClosed(queue: DynoQueue): boolean {
  return (queue as { isClosed?: unknown }).isClosed === true;
}
