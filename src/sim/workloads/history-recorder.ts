import type { DeliveryVia, HistoryOp, MessageOp, Outcome, StoppedConsumer } from '../../model/history.js';
import { DynoqError } from '../../queue/errors.js';
import { CallEffects } from '../store/call-effects.js';
import type { CallProbe } from '../store/call-probe.js';
import type { RunTime } from '../kernel/run-time.js';
import type { Observations } from '../kernel/observations.js';
import type { Trace } from '../kernel/trace.js';

/** The trace event that amends a call recorded `fail` to `unknown` (parseTrace applies it). */
export const RECLASSIFIED = 'reclassified';

/** A message as a push or ensure sends it. */
export interface PushedMessage {
  readonly id: string;
  readonly delayMs: number;
  readonly priority: number;
}

/**
 * One part of a call, known when it is made, so that a call in flight when its client crashes is
 * recorded with every operation it may have done. A combined call (ackAndPop) has several parts.
 */
export type CallPart =
  | {
      readonly type: 'push' | 'ensure';
      readonly messages: readonly PushedMessage[];
      /** The shard the queue picked for a message, read when the call ends (the queue picks while sending). */
      readonly shardOf?: (id: string) => string | undefined;
    }
  | { readonly type: 'ack' | 'remove' | 'release'; readonly ids: readonly string[] }
  | { readonly type: 'reschedule'; readonly id: string; readonly delayMs: number }
  | { readonly type: 'extend'; readonly id: string; readonly leaseUntil: number }
  | { readonly type: 'pop'; readonly via: DeliveryVia; readonly shard?: string; readonly id?: string };

/** What a call returned beyond its outcome. */
export interface CallResult {
  /** Per message id, an outcome other than the call's (an ackMany item that returned false is `fail`). */
  readonly outcomes?: ReadonlyMap<string, Outcome>;
  /** ensure: whether it created the message. */
  readonly created?: boolean;
  /** What a pop part returned. */
  readonly delivered?: readonly { readonly id: string; readonly shard: string; readonly leaseUntil: number }[];
}

interface Call {
  readonly process: string;
  readonly invokedAt: number;
  readonly parts: readonly CallPart[];
  readonly probe: CallProbe;
  readonly effects: CallEffects;
}

/**
 * Writes the history of a run as the workload's clients see it (docs/CHECKER.md §1.1, §1.2): each call with its
 * outcome, deliveries with their leases, pops with how long they waited, and the calls a client had
 * in flight when it crashed (unknown, recorded at the crash). It also knows what each client holds
 * and has in flight, for faults' exposure.
 */
export class HistoryRecorder {
  readonly history: HistoryOp[] = [];
  /** Called with the operations of a call recorded `fail` that a replica applied afterwards (now `unknown`). */
  onReclassified: ((ops: readonly MessageOp[]) => void) | null = null;
  /** Once the run ended, replicas still applying writes no longer change the recorded history. */
  private sealed = false;
  private readonly inFlight = new Map<string, Set<Call>>();
  private readonly holdings = new Map<string, Map<string, number>>();

  constructor(
    private readonly kernel: RunTime,
    private readonly trace: Trace,
    private readonly observations?: Observations,
  ) {}

  private record(op: HistoryOp): void {
    this.history.push(op);
    this.trace.record({ t: op.completedAt, actor: op.process, op: 'history', args: op });
  }

  /** A call begins; `probe` is reset so that it sees only this call's writes. */
  begin(process: string, what: CallPart | readonly CallPart[], probe: CallProbe): Call {
    probe.mayHaveApplied = false;
    const parts: readonly CallPart[] = Array.isArray(what) ? what : [what as CallPart];
    const call: Call = { process, invokedAt: this.kernel.now, parts, probe, effects: new CallEffects() };
    probe.effects = call.effects;
    let set = this.inFlight.get(process);
    if (!set) this.inFlight.set(process, (set = new Set()));
    set.add(call);
    return call;
  }

  /**
   * The call returned (or threw): its operations with their outcome, which is returned. A refusal
   * that a replica applied is `unknown`, not `fail` (docs/CHECKER.md §1.2): under a quorum vote the reply can
   * be 0 while a minority replica ran the write, before the reply or after it (then it is amended).
   */
  end(call: Call, returned: Outcome, result: CallResult = {}): Outcome {
    if (!this.inFlight.get(call.process)?.delete(call)) return returned;
    if (call.probe.effects === call.effects) call.probe.effects = null;
    const applied = call.effects.applied;
    const outcomeOf = (id?: string): Outcome => {
      const o = (id !== undefined ? result.outcomes?.get(id) : undefined) ?? returned;
      return o === 'fail' && applied ? 'unknown' : o;
    };
    const outcome = outcomeOf();
    const base = { process: call.process, invokedAt: call.invokedAt, completedAt: this.kernel.now };
    const ops: MessageOp[] = [];
    for (const part of call.parts) {
      switch (part.type) {
        case 'push':
        case 'ensure':
          for (const m of part.messages) {
            const o = outcomeOf(m.id);
            const shard = part.shardOf?.(m.id);
            const where = { delayMs: m.delayMs, priority: m.priority, ...(shard !== undefined ? { shard } : {}) };
            if (part.type === 'push') ops.push({ type: 'push', ...base, outcome: o, id: m.id, ...where });
            else ops.push({ type: 'ensure', ...base, outcome: o, id: m.id, ...where, ...(o === 'ok' && result.created !== undefined ? { created: result.created } : {}) });
          }
          break;
        case 'ack':
        case 'remove':
        case 'release':
          for (const id of part.ids) ops.push({ type: part.type, ...base, id, outcome: outcomeOf(id) });
          break;
        case 'reschedule':
          ops.push({ type: 'reschedule', ...base, id: part.id, outcome: outcomeOf(part.id), delayMs: part.delayMs });
          break;
        case 'extend':
          ops.push({ type: 'extend', ...base, id: part.id, outcome: outcomeOf(part.id), leaseUntil: part.leaseUntil });
          break;
        case 'pop':
          break;
      }
    }
    // Where refused ops sit in the history (only ever appended to), for an amendment later.
    const fails: [MessageOp, number][] = [];
    for (const op of ops) {
      if (op.outcome === 'fail') fails.push([op, this.history.length]);
      this.record(op);
      if (op.type === 'ack' || op.type === 'release') this.holdings.get(call.process)?.delete(op.id);
      if (op.type === 'extend' && op.outcome === 'ok') this.holdings.get(call.process)?.set(op.id, op.leaseUntil);
    }
    if (fails.length > 0) call.effects.returnedThen(() => this.reclassify(fails));
    for (const part of call.parts) {
      if (part.type !== 'pop') continue;
      // A pop's deliveries are ok whatever else the call did: the messages are in the caller's hands.
      const delivered = returned === 'ok' || (result.delivered?.length ?? 0) > 0 ? (result.delivered ?? []) : [];
      for (const d of delivered) this.deliver(call.process, d.id, call.invokedAt, d.leaseUntil, part.via, d.shard);
      // Its own outcome is the call's when that is unknown: a pop that came back with a store error
      // after leasing (PoppedBatch.error) may have leased more to nobody, and it did not just wait.
      const popOutcome: Outcome = delivered.length > 0 && outcome !== 'unknown' ? 'ok' : outcome;
      this.record({
        type: 'pop',
        ...base,
        outcome: popOutcome,
        via: part.via,
        ...(part.shard !== undefined ? { shard: part.shard } : {}),
        ...(part.id !== undefined ? { id: part.id } : {}),
        delivered: delivered.length,
      });
    }
    return outcome;
  }

  /** A replica applied operations already recorded `fail`: they become `unknown`. */
  private reclassify(refused: readonly (readonly [MessageOp, number])[]): void {
    if (this.sealed || refused.length === 0) return;
    const amended = refused.map(([op, at]) => (this.history[at] = { ...op, outcome: 'unknown' as const }));
    const ops = refused.map(([op]) => op);
    const first = ops[0]!;
    this.trace.record({
      t: this.kernel.now,
      actor: first.process,
      op: RECLASSIFIED,
      args: { type: first.type, invokedAt: first.invokedAt, ids: ops.map((o) => o.id), outcome: 'unknown' },
    });
    this.onReclassified?.(amended);
  }

  /** The run ended: the history is final. */
  seal(): void {
    this.sealed = true;
  }

  /** Consumer loops that ended on their own before the run did: what keeps consuming judges. */
  readonly stops: StoppedConsumer[] = [];

  /** A consumer loop ended on its own (not crashed, the run not over): a consumer that stopped. */
  stopped(process: string, shard: string): void {
    const at = this.kernel.now;
    this.stops.push({ process, shard, at });
    this.trace.record({ t: at, actor: process, op: 'consumer-stopped', args: { shard } });
  }

  /** The client died: whatever it had in flight may or may not have happened. */
  crashed(process: string): void {
    for (const call of [...(this.inFlight.get(process) ?? [])]) {
      // Pops still waiting when the run ended (every client is stopped then) took nothing anyone saw.
      if (this.sealed && call.parts.every((p) => p.type === 'pop')) this.inFlight.get(process)?.delete(call);
      else this.end(call, 'unknown');
    }
  }

  private deliver(process: string, id: string, invokedAt: number, leaseUntil: number, via: DeliveryVia, shard: string): void {
    this.record({ type: 'deliver', process, id, invokedAt, completedAt: this.kernel.now, outcome: 'ok', leaseUntil, via, shard });
    this.observations?.emit('delivered', { actor: process, id, invokedAt });
    let held = this.holdings.get(process);
    if (!held) this.holdings.set(process, (held = new Map()));
    held.set(id, leaseUntil);
  }

  heldBy(process: string): { id: string; leaseUntil: number }[] {
    const now = this.kernel.now;
    return [...(this.holdings.get(process) ?? [])].filter(([, until]) => until > now).map(([id, leaseUntil]) => ({ id, leaseUntil }));
  }

  inFlightCount(process: string): number {
    return this.inFlight.get(process)?.size ?? 0;
  }
}

/**
 * The outcome of a call that threw: a refusal before anything was written (bad input, a closed
 * queue, or every write refused before reaching a store) is a `fail`; anything else is `unknown`.
 */
export function outcomeOfError(err: unknown, probe: CallProbe): Outcome {
  if (err instanceof DynoqError && (err.code === 'INVALID_MESSAGE' || err.code === 'INVALID_ARGUMENT' || err.code === 'QUEUE_CLOSED')) return 'fail';
  return probe.mayHaveApplied ? 'unknown' : 'fail';
}
