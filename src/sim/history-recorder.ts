import type { HistoryOp, Outcome } from '../model/history.js';
import { DynoqError } from '../queue/errors.js';
import type { CallProbe } from './sim-store.js';
import type { Kernel } from './kernel.js';
import type { Observations } from './observations.js';
import type { Trace } from './trace.js';

type Pending = { readonly type: 'push'; readonly delays: ReadonlyMap<string, number> } | { readonly type: 'ack' | 'remove'; readonly ids: readonly string[] };

interface Call {
  readonly process: string;
  readonly invokedAt: number;
  readonly what: Pending;
}

/**
 * Writes the history of a run as the workload's clients see it (SPEC §6.1): each call with its
 * outcome, deliveries with their leases, and the calls a client had in flight when it crashed
 * (unknown, recorded at the crash). It also knows what each client holds and has in flight (pops
 * included, though a pop is recorded only by the deliveries it returns), for faults' exposure.
 */
export class HistoryRecorder {
  readonly history: HistoryOp[] = [];
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
    const call: Call = { process, invokedAt: this.kernel.now, what };
    let set = this.inFlight.get(process);
    if (!set) this.inFlight.set(process, (set = new Set()));
    set.add(call);
    return call;
  }

  /** The call returned (or threw): its operations with their outcome. */
  end(call: Call, outcome: Outcome): void {
    if (!this.inFlight.get(call.process)?.delete(call)) return;
    const base = { process: call.process, invokedAt: call.invokedAt, completedAt: this.kernel.now, outcome };
    const w = call.what;
    if (w.type === 'push') {
      for (const [id, delayMs] of w.delays) this.record({ type: 'push', ...base, id, delayMs });
    } else {
      for (const id of w.ids) {
        this.record({ type: w.type, ...base, id });
        if (w.type === 'ack') this.holdings.get(call.process)?.delete(id);
      }
    }
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
