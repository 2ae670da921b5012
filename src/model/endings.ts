import type { CheckReport, Violation } from './checker.js';
import { extraFields, faultsAt, type FaultSpan } from './history-file.js';
import { stillOpenAtEnd } from './properties/at-least-once.js';
import type { EnsureOp, HistoryOp, PopOp, PushOp } from './history.js';
import { holdsOf } from './holds.js';
import { mayHaveApplied, mayHaveCreated, type MessageOps } from './message-ops.js';
import { PROPERTY_NAMES } from './properties.js';

/**
 * How a judged history ended, beyond its findings (issue 27, "honest endings"): what the unknown
 * operations left open. The definitions, per message (an id with a push or ensure that may have
 * applied):
 * - **recovered** — it has a push or ensure whose outcome is unknown, none that returned ok, and it
 *   was delivered after that push was invoked: the unknown push took effect (Jepsen's "recovered").
 *   A count, never a violation.
 * - **undetermined** — whether it was processed rests on unknown operations only: either every push
 *   that may have created it is unknown and nothing ever delivered, acked or removed it (it may never
 *   have existed), or its latest ok push is followed by no ok ack or ok remove but by an unknown one
 *   (at-least-once holds for it only because an unknown ack or remove may have applied), or by nothing
 *   yet because it was still held, or a pop that may have taken it still in flight, when the history
 *   ended. Operations in flight when the history ended are unknown.
 */
export interface Endings {
  /** Messages judged: ids with a push or ensure that may have applied. */
  messages: number;
  recovered: number;
  undetermined: number;
  /** Operations in flight when the history ended (no completedAt). */
  inFlight: number;
}

export const noEndings = (): Endings => ({ messages: 0, recovered: 0, undetermined: 0, inFlight: 0 });

/**
 * One message's part of the endings. With `atEnd` (its id, the history's end and the pops in flight
 * then), a message still held or possibly being popped when the history ended is undetermined too.
 */
export function tallyEndings(m: MessageOps, e: Endings, atEnd?: { readonly id: string; readonly end: number; readonly pops: readonly PopOp[] }): void {
  // Loops, not filters: this runs for every message of a history of millions.
  let creators = 0;
  // The latest ok creator and the earliest unknown one (the first of those invoked at the same time).
  let last: PushOp | EnsureOp | undefined;
  let firstUnknown: PushOp | EnsureOp | undefined;
  for (const p of m.pushes) {
    if (!mayHaveCreated(p)) continue;
    creators++;
    if (p.outcome === 'ok' && (last === undefined || p.invokedAt > last.invokedAt)) last = p;
    if (p.outcome === 'unknown' && (firstUnknown === undefined || p.invokedAt < firstUnknown.invokedAt)) firstUnknown = p;
  }
  if (creators === 0) return;
  e.messages++;
  if (last === undefined) {
    if (m.deliveries.some((d) => d.completedAt >= firstUnknown!.invokedAt)) {
      e.recovered++;
      return;
    }
    if (m.deliveries.length === 0 && !m.acks.some(mayHaveApplied) && !m.removes.some(mayHaveApplied)) e.undetermined++;
    return;
  }
  // The acks and removes that returned since: one ok settles it; else an unknown one leaves it undetermined.
  let unknownFinal = false;
  for (const x of m.acks) {
    if (x.completedAt < last.invokedAt) continue;
    if (x.outcome === 'ok') return;
    if (x.outcome === 'unknown') unknownFinal = true;
  }
  for (const x of m.removes) {
    if (x.completedAt < last.invokedAt) continue;
    if (x.outcome === 'ok') return;
    if (x.outcome === 'unknown') unknownFinal = true;
  }
  if (unknownFinal || (atEnd && stillOpenAtEnd(atEnd.id, m, holdsOf(m), atEnd.pops, last, atEnd.end))) e.undetermined++;
}

/** valid: every property held and enough was known; invalid: a property was violated; unknown: too much in flight to tell. */
export type Verdict = 'valid' | 'invalid' | 'unknown';

/**
 * The default largest share of undetermined messages for which a history with no violation is still
 * valid: above it the verdict is unknown.
 */
export const DEFAULT_MAX_UNDETERMINED = 0.01;

/**
 * The verdict: invalid when some property was violated; otherwise unknown when more than
 * `maxUndetermined` of the messages are undetermined (see {@link Endings}); otherwise valid.
 */
export function verdictOf(report: Pick<CheckReport, 'properties'>, endings: Endings, maxUndetermined = DEFAULT_MAX_UNDETERMINED): Verdict {
  if (!PROPERTY_NAMES.every((p) => report.properties[p])) return 'invalid';
  return endings.undetermined > maxUndetermined * endings.messages ? 'unknown' : 'valid';
}

/** An operation's fields that the format does not know (a recorder's own), with what identifies the operation. */
export interface OpExtra {
  readonly type: string;
  readonly process: string;
  readonly invokedAt: number;
  readonly extra: Readonly<Record<string, unknown>>;
}

/** At most this many operations' extra fields are kept per message. */
const MAX_EXTRAS_PER_MESSAGE = 20;

export function extrasOf(ops: Iterable<HistoryOp>): OpExtra[] {
  const out: OpExtra[] = [];
  for (const op of ops) {
    const extra = extraFields(op);
    if (extra) out.push({ type: op.type, process: op.process, invokedAt: op.invokedAt, extra });
    if (out.length === MAX_EXTRAS_PER_MESSAGE) break;
  }
  return out;
}

/** A finding with the faults in effect at its time and the recorder's own fields of its message's operations. */
export interface ExplainedViolation extends Violation {
  readonly faults?: readonly FaultSpan[];
  readonly extras?: readonly OpExtra[];
}

export function explain(violations: readonly Violation[], faults: readonly FaultSpan[], extrasById: ReadonlyMap<string, readonly OpExtra[]>): ExplainedViolation[] {
  return violations.map((v) => {
    const inEffect = faultsAt(faults, v.t);
    const extras = extrasById.get(v.id);
    return { ...v, ...(inEffect.length > 0 ? { faults: inEffect } : {}), ...(extras && extras.length > 0 ? { extras } : {}) };
  });
}
