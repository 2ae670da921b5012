import type { EnsureOp, PushOp, ReleaseOp, RescheduleOp } from './history.js';
import { mayHaveApplied, mayHaveCreated, type MessageOps } from './message-ops.js';

/** An operation that makes a message visible at some time: a push, ensure, reschedule or release. */
type VisibilityOp = PushOp | EnsureOp | RescheduleOp | ReleaseOp;

/** The earliest time the operation can make the message visible (its invocation + the delay asked for). */
export function earliestDue(v: VisibilityOp): number {
  return v.type === 'release' ? v.invokedAt : v.invokedAt + v.delayMs;
}

/** The latest: the delay counted from the operation's return. */
export function latestDue(v: VisibilityOp): number {
  return v.type === 'release' ? v.completedAt : v.completedAt + v.delayMs;
}

/** Whether the operation asks for a delay at all (a release never does). */
export function delays(v: VisibilityOp): boolean {
  return v.type !== 'release' && v.delayMs > 0;
}

/** The visibility operations of a message that may have taken effect. */
export function visibilityOps(m: MessageOps): VisibilityOp[] {
  // Loops, not filter and spread: the judge runs this for every message of a history of millions.
  const out: VisibilityOp[] = [];
  for (const p of m.pushes) if (mayHaveCreated(p)) out.push(p);
  for (const r of m.reschedules) if (mayHaveApplied(r)) out.push(r);
  for (const r of m.releases) if (mayHaveApplied(r)) out.push(r);
  return out;
}

/**
 * The visibility operations that may still decide the due time of a pop over [invokedAt, completedAt]
 * (docs/CHECKER.md §2.2): invoked before the pop returned, and not overtaken — no later ok reschedule, release,
 * ack or remove both began after it returned and returned before the pop began. A later push never
 * overtakes: pushing an existing message keeps its earliest due time.
 */
export function decidingOps(m: MessageOps, visible: readonly VisibilityOp[], invokedAt: number, completedAt: number): VisibilityOp[] {
  const out: VisibilityOp[] = [];
  for (const v of visible) {
    if (v.invokedAt < completedAt && !overtakenIn(m.reschedules, v, invokedAt) && !overtakenIn(m.releases, v, invokedAt) && !overtakenIn(m.acks, v, invokedAt) && !overtakenIn(m.removes, v, invokedAt)) out.push(v);
  }
  return out;
}

/** Whether an ok operation of `ops` began after `v` returned and returned before `invokedAt` (see decidingOps). */
function overtakenIn(ops: readonly { readonly outcome: string; readonly invokedAt: number; readonly completedAt: number }[], v: VisibilityOp, invokedAt: number): boolean {
  for (const y of ops) if (y.outcome === 'ok' && y.completedAt < invokedAt && y !== v && y.invokedAt > v.completedAt) return true;
  return false;
}
