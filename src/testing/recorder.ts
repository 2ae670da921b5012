import { callOperations, type CallResult } from '../model/call-operations.js';
import type { HistoryOp, Outcome } from '../model/history.js';
import { HISTORY_FORMAT_VERSION } from '../model/history.js';
import { METHOD_HISTORY, type HistoryTableOf, type MethodOf, type RecordedCall, type RecordedMethod } from '../model/method-history.js';
import type { ConsumeOptions, DynoQueue, QueueMode } from '../queue/dyno-queue.js';
import { InvalidArgumentError } from '../queue/errors.js';
import type { PoppedMessage } from '../queue/message.js';
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

/** The table read against the real queue interface: a public method without an entry does not compile. */
const HISTORY: HistoryTableOf<DynoQueue> = METHOD_HISTORY;

type Method = MethodOf<DynoQueue>;
type Args<M extends Method> = Parameters<DynoQueue[M]>;
type Reply<M extends Method> = Awaited<ReturnType<DynoQueue[M]>>;

/**
 * The queue with its calls recorded: each method does what its METHOD_HISTORY entry says (a
 * recorded call, a loop of recorded steps, or the queue's own method unrecorded). The methods are
 * made from the table below the class.
 */
interface RecordingQueue extends DynoQueue {}
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

  private get queue(): DynoQueue {
    return this.rec.queue;
  }

  as(process: string): RecordedQueue {
    return new RecordingQueue(this.rec, checkProcess(process));
  }

  stopRecording(): void {
    this.rec.stop();
  }

  // Every other method, from the table: a recorded call, or the queue's own method unrecorded.
  static {
    for (const [method, entry] of Object.entries(HISTORY) as [Method, (typeof HISTORY)[Method]][]) {
      if (entry.records === 'steps') continue; // a loop: consume, written below
      const recorded = entry.records === 'call';
      Object.defineProperty(RecordingQueue.prototype, method, {
        configurable: true,
        writable: true,
        value(this: RecordingQueue, ...args: unknown[]) {
          return recorded ? this.recordCall(method as RecordedMethod, args as Args<RecordedMethod>) : (this.queue[method] as (...a: unknown[]) => unknown).apply(this.queue, args);
        },
      });
    }
  }

  /** Runs a call and records its operations: with the reply read by its entry, or with the thrown error's outcome. */
  private async recordCall<M extends RecordedMethod>(method: M, args: Args<M>): Promise<Reply<M>> {
    const entry = HISTORY[method] as RecordedCall<Args<M>, Reply<M>>;
    const invokedAt = this.rec.clock();
    const site = { invokedAt, leaseMs: this.rec.unackTimeoutMs, localShard: this.rec.hooks?.localShard };
    const parts = entry.parts(args, site);
    const write = (completedAt: number, returned: Outcome, result: CallResult) => {
      const { ops } = callOperations({ process: this.process, invokedAt, completedAt }, parts, returned, result, { shardOf: (id) => this.rec.takeShard(id) });
      for (const op of ops) this.rec.record(op);
    };
    // Still in flight when the history ends (stopRecording, the process exiting): unknown, no completedAt.
    const returned = this.rec.begin(() => write(invokedAt, 'unknown', {}));
    let value: Reply<M>;
    try {
      value = await (this.queue[method] as (...a: Args<M>) => Promise<Reply<M>>).apply(this.queue, args);
    } catch (err) {
      returned();
      write(this.rec.clock(), outcomeOfThrow(err), {});
      throw err;
    }
    returned();
    const reply = entry.reply(value, args, site);
    write(this.rec.clock(), reply.outcome, reply.result);
    return value;
  }

  /**
   * The queue's consume loop, made of recorded pops and releases (METHOD_HISTORY.consume): each
   * batch is a pop call (a `pop` line and its deliveries); leaving the loop early releases the
   * batch's messages not yet yielded.
   */
  async *consume(options: ConsumeOptions = {}): AsyncIterableIterator<PoppedMessage> {
    if (typeof options !== 'object' || options === null) throw new InvalidArgumentError('consume options', 'must be an object');
    const batch = options.batch ?? 1;
    const wait = options.wait ?? 1_000;
    let pending: PoppedMessage[] = [];
    try {
      while (!options.signal?.aborted && !isClosed(this.queue)) {
        const popped = await this.pop(batch, { wait, ...(options.signal ? { signal: options.signal } : {}) });
        if (popped.keptBack) {
          try {
            options.onLeasesKeptBack?.(popped.keptBack);
          } catch {
            // a failing hook must not end the loop (as the queue's own consume)
          }
        }
        pending = [...popped];
        while (pending.length > 0) yield pending.shift()!;
        if (Object.hasOwn(popped, 'error')) throw popped.error;
      }
    } finally {
      for (const m of pending.splice(0)) await this.release(m.id, m.token).catch(() => undefined);
    }
  }
}

function isClosed(queue: DynoQueue): boolean {
  return (queue as { isClosed?: unknown }).isClosed === true;
}
