import type { Violation } from '../../model/checker.js';
import type { HistoryOp } from '../../model/history.js';
import { VIOLATION_KINDS, type ViolationKind } from '../../model/properties.js';
import { packageOf } from '../faults/index.js';
import type { StruckFault } from '../run/run.js';

/** Why a finding happened, as read from a run's history and the exposure of its faults. */
export interface Mechanism {
  readonly kind: ViolationKind;
  /** What struck: fault families with what they did, or how the queue got there without a fault. */
  readonly cause: string;
}

/** A mechanism as docs/GUARANTEES.md, explore and `--known` files name it: `kind ← cause`. */
export function mechanismKey(m: Mechanism): string {
  return `${m.kind} ← ${m.cause}`;
}

/** The mechanism a key names (what mechanismKey wrote, as published data and `--known` files keep it). */
export function mechanismOf(key: string): Mechanism {
  const at = key.indexOf(' ← ');
  return { kind: key.slice(0, at) as ViolationKind, cause: key.slice(at + ' ← '.length) };
}

function faultCause(f: StruckFault): string {
  const pkg = packageOf(f.fault.kind);
  const key = pkg.exposureNames.find((k) => (f.exposure.counts[k] ?? 0) > 0);
  const where = pkg.causeDetail?.(f.fault) ?? '';
  return key ? `${f.family}${where} (${key})` : f.family;
}

/**
 * An ack that did not come back ok: refused (fail), or unknown — on Dynomite a refusal is a vote
 * another replica may have lost, so it is recorded unknown (docs/CHECKER.md §1.2).
 */
const NOT_CONFIRMED = 'no fault: an ack was refused or unanswered';

/** How the deliveries of a message ended, when no fault explains a finding. */
function queueCause(v: Violation, ops: readonly HistoryOp[]): string {
  const acks = ops.filter((o) => o.type === 'ack');
  const unconfirmed = acks.some((a) => a.outcome !== 'ok');
  const deliveries = ops.filter((o) => o.type === 'deliver');
  if (v.kind === 'lost-never-delivered') return 'no fault: never popped';
  if (v.kind === 'double-pop' || v.kind === 'resurrection' || v.kind === 'early') {
    if (unconfirmed) return NOT_CONFIRMED;
    return 'no fault: lease ran out while held';
  }
  const unacked = deliveries.filter((d) => !acks.some((a) => a.process === d.process && a.invokedAt >= d.completedAt));
  if (unacked.length > 0) return 'no fault: a holder never acked (crashed before its ack)';
  if (unconfirmed) return NOT_CONFIRMED;
  return 'no fault';
}

/**
 * Classifies each failing finding of a run: the faults that touched its message (by id) or, failing
 * that, the faults that struck (with exposure) before it; with none, how the queue got there alone.
 */
export function classifyFindings(violations: readonly Violation[], history: readonly HistoryOp[], faults: readonly StruckFault[]): Mechanism[] {
  const byId = new Map<string, HistoryOp[]>();
  for (const op of history) {
    if (op.type === 'pop') continue;
    const list = byId.get(op.id);
    if (list) list.push(op);
    else byId.set(op.id, [op]);
  }
  const struck = faults.filter((f) => f.exposure.struck);
  return violations
    .filter((v) => VIOLATION_KINDS[v.kind].breaks !== null)
    .map((v) => {
      const touched = struck.filter((f) => f.exposure.ids.includes(v.id));
      const candidates = touched.length > 0 ? touched : struck.filter((f) => f.t <= v.t);
      const causes = [...new Set(candidates.map(faultCause))].sort();
      return { kind: v.kind, cause: causes.length > 0 ? causes.join(' + ') : queueCause(v, byId.get(v.id) ?? []) };
    });
}

/** The distinct mechanisms (`kind ← cause`), worst kind first (WORST_FIRST), then by name. */
export function mechanismsWorstFirst(mechanisms: readonly Mechanism[]): string[] {
  const rankOf = new Map<string, number>();
  for (const m of mechanisms) rankOf.set(mechanismKey(m), VIOLATION_KINDS[m.kind].rank);
  return [...rankOf.keys()].sort((a, b) => rankOf.get(a)! - rankOf.get(b)! || (a < b ? -1 : a > b ? 1 : 0));
}

/** Distinct mechanisms of a run with how many findings each explains. */
export function mechanismCounts(mechanisms: readonly Mechanism[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const m of mechanisms) counts.set(mechanismKey(m), (counts.get(mechanismKey(m)) ?? 0) + 1);
  return counts;
}
