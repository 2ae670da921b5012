import type { HistoryOp, Outcome } from '../model/history.js';
import { DynoqError } from '../queue/errors.js';
import { CallEffects } from './call-effects.js';
import type { CallProbe } from './sim-store.js';
import type { Kernel } from './kernel.js';
import type { Observations } from './observations.js';
import type { Trace } from './trace.js';

/** The trace event that amends a call recorded `fail` to `unknown` (parseTrace applies it). */
export const RECLASSIFIED = 'reclassified';

type Pending = { readonly type: 'push'; readonly delays: ReadonlyMap<string, number> } | { readonly type: 'ack' | 'remove'; readonly ids: readonly string[] };

interface Call {
  readonly process: string;
  readonly invokedAt: number;
  readonly what: Pending;
  readonly probe: CallProbe;
  readonly effects: CallEffects;
}

/**
 * Writes the history of a run as the workload's clients see it (SPEC §6.1): each call with its
 * outcome, deliveries with their leases, and the calls a client had in flight when it crashed
 * (unknown, recorded at the crash). It also knows what each client holds and has in flight (pops
 * included, though a pop is recorded only by the deliveries it returns), for faults' exposure.
 */
export class HistoryRecorder {
  readonly history: HistoryOp[] = [];
  /** Called with the operations of a call recorded `fail` that a replica applied afterwards (now `unknown`). */
  onReclassified: ((ops: readonly HistoryOp[]) => void) | null = null;
  /** Once the run ended, replicas still applying writes no longer change the recorded history. */
  private sealed = false;
  private readonly inFlight = new Map<string, Set<Call>>();
  private readonly popsInFlight = new Map<string, number>();
  private readonly holdings = new Map<string, Map<string, number>>();

  constructor(
    private readonly kernel: Kernel,
    private readonly trace: Trace,
    private readonly observations?: Observations,
  ) {}

  private record(op: HistoryOp): void {
    this.history.push(op);
    this.trace.record({ t: op.completedAt, actor: op.process, op: 'history', args: op });
  }

  /** A call begins; `probe` is reset so that it sees only this call's writes. */
  begin(process: string, what: Pending, probe: CallProbe): Call {
    probe.mayHaveApplied = false;
    const call: Call = { process, invokedAt: this.kernel.now, what, probe, effects: new CallEffects() };
    probe.effects = call.effects;
    let set = this.inFlight.get(process);
    if (!set) this.inFlight.set(process, (set = new Set()));
    set.add(call);
    return call;
  }

  /**
   * The call returned (or threw): its operations with their outcome, which is returned. A refusal
   * that a replica applied is `unknown`, not `fail` (SPEC §6.1): under a quorum vote the reply can
   * be 0 while a minority replica ran the write, before the reply or after it (then it is amended).
   */
  end(call: Call, returned: Outcome): Outcome {
    if (!this.inFlight.get(call.process)?.delete(call)) return returned;
    if (call.probe.effects === call.effects) call.probe.effects = null;
    const outcome = returned === 'fail' && call.effects.applied ? 'unknown' : returned;
    const base = { process: call.process, invokedAt: call.invokedAt, completedAt: this.kernel.now, outcome };
    const w = call.what;
    const ops: HistoryOp[] = [];
    if (w.type === 'push') {
      for (const [id, delayMs] of w.delays) ops.push({ type: 'push', ...base, id, delayMs });
    } else {
      for (const id of w.ids) ops.push({ type: w.type, ...base, id });
    }
    // Where the ops sit in the history (only ever appended to), for an amendment later.
    const first = this.history.length;
    for (const op of ops) {
      this.record(op);
      if (op.type === 'ack') this.holdings.get(call.process)?.delete(op.id);
    }
    if (outcome === 'fail') call.effects.returnedThen(() => this.reclassify(ops, first));
    return outcome;
  }

  /** A replica applied a call already recorded `fail`: its operations become `unknown`. */
  private reclassify(ops: readonly HistoryOp[], at: number): void {
    if (this.sealed || ops.length === 0) return;
    ops.forEach((op, i) => (this.history[at + i] = { ...op, outcome: 'unknown' }));
    const first = ops[0]!;
    this.trace.record({
      t: this.kernel.now,
      actor: first.process,
      op: RECLASSIFIED,
      args: { type: first.type, invokedAt: first.invokedAt, ids: ops.map((o) => o.id), outcome: 'unknown' },
    });
    this.onReclassified?.(ops);
  }

  /** The run ended: the history is final. */
  seal(): void {
    this.sealed = true;
  }

  /** The client died: whatever it had in flight may or may not have happened. */
  crashed(process: string): void {
    for (const call of [...(this.inFlight.get(process) ?? [])]) this.end(call, 'unknown');
    this.popsInFlight.delete(process);
  }

  /** A pop begins: nothing is recorded unless it delivers, but a fault striking now finds it in flight. */
  popBegan(process: string): void {
    this.popsInFlight.set(process, (this.popsInFlight.get(process) ?? 0) + 1);
  }

  popEnded(process: string): void {
    const n = (this.popsInFlight.get(process) ?? 0) - 1;
    if (n > 0) this.popsInFlight.set(process, n);
    else this.popsInFlight.delete(process);
  }

  deliver(process: string, id: string, invokedAt: number, leaseUntil: number): void {
    this.record({ type: 'deliver', process, id, invokedAt, completedAt: this.kernel.now, outcome: 'ok', leaseUntil });
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
    return (this.inFlight.get(process)?.size ?? 0) + (this.popsInFlight.get(process) ?? 0);
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
