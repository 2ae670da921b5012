import { callOperations, type CallPart, type CallResult } from '../../model/call-operations.js';
import type { HistoryOp, MessageOp, Outcome, StoppedConsumer } from '../../model/history.js';
import { DynoqError } from '../../queue/errors.js';
import { CallEffects } from '../store/call-effects.js';
import type { CallProbe } from '../store/call-probe.js';
import type { RunTime } from '../kernel/run-time.js';
import type { Observations } from '../kernel/observations.js';
import type { Trace } from '../kernel/trace.js';

/** The trace event that amends a call recorded `fail` to `unknown` (parseTrace applies it). */
export const RECLASSIFIED = 'reclassified';

interface Call {
  readonly process: string;
  readonly invokedAt: number;
  readonly parts: readonly CallPart[];
  readonly probe: CallProbe;
  readonly effects: CallEffects;
  /** The shard the queue picked for a pushed or ensured message, read when the call ends (the queue picks while sending). */
  readonly shardOf: ((id: string) => string | undefined) | undefined;
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
  begin(process: string, parts: readonly CallPart[], probe: CallProbe, shardOf?: (id: string) => string | undefined): Call {
    probe.mayHaveApplied = false;
    const call: Call = { process, invokedAt: this.kernel.now, parts, probe, effects: new CallEffects(), shardOf };
    probe.effects = call.effects;
    let set = this.inFlight.get(process);
    if (!set) this.inFlight.set(process, (set = new Set()));
    set.add(call);
    return call;
  }

  /**
   * The call returned (or threw): its operations (callOperations) with their outcome, which is
   * returned. A refusal that a replica applied is `unknown`, not `fail` (docs/CHECKER.md §1.2): on
   * Dynomite every answered refusal already is (CallProbe.writeMayHaveApplied); one a replica applies
   * only after the call returned is amended.
   */
  end(call: Call, returned: Outcome, result: CallResult = {}): Outcome {
    if (!this.inFlight.get(call.process)?.delete(call)) return returned;
    if (call.probe.effects === call.effects) call.probe.effects = null;
    const applied = call.effects.applied;
    const { ops, outcome } = callOperations({ process: call.process, invokedAt: call.invokedAt, completedAt: this.kernel.now }, call.parts, returned, result, {
      ...(call.shardOf ? { shardOf: call.shardOf } : {}),
      settle: (o) => (o === 'fail' && applied ? 'unknown' : o),
    });
    // Where refused ops sit in the history (only ever appended to), for an amendment later.
    const fails: [MessageOp, number][] = [];
    for (const op of ops) {
      if (op.type === 'pop') {
        this.record(op);
        continue;
      }
      if (op.outcome === 'fail') fails.push([op, this.history.length]);
      this.record(op);
      if (op.type === 'ack' || op.type === 'release') this.holdings.get(call.process)?.delete(op.id);
      if (op.type === 'extend' && op.outcome === 'ok') this.holdings.get(call.process)?.set(op.id, op.leaseUntil);
      if (op.type === 'deliver') this.delivered(op.process, op.id, op.invokedAt, op.leaseUntil);
    }
    if (fails.length > 0) call.effects.returnedThen(() => this.reclassify(fails));
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

  /** A delivery was recorded: the client holds the message until its lease ends. */
  private delivered(process: string, id: string, invokedAt: number, leaseUntil: number): void {
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
