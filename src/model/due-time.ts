import type { AckOp, EnsureOp, PushOp, ReleaseOp, RemoveOp, RescheduleOp } from './history.js';
import { mayHaveApplied, mayHaveCreated, type MessageOps } from './message-ops.js';

/** An operation that makes a message visible at some time: a push, ensure, reschedule or release. */
export type VisibilityOp = PushOp | EnsureOp | RescheduleOp | ReleaseOp;

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
 * Whether `y` surely took effect after `v`: it began after `v` returned, or it found the message `v`
 * made (docs/CHECKER.md §2.2). A reschedule, release, ack or remove that returned ok found the message
 * (each is refused on one that does not exist, or is not queued or held), so when `v` is the only push
 * or ensure that may have created the message invoked before `y` returned, `v` came first, however the
 * two overlap. Found on the recommended primary-replica set-up: a push [529, 540] (+879 ms) and an ok
 * reschedule [532, 534] (+1,816 ms) of the message it alone created; counted due from 1,419, not 2,350,
 * it was blamed for a priority inversion and a late pop.
 */
export function surelyAfter(m: MessageOps, y: RescheduleOp | ReleaseOp | AckOp | RemoveOp, v: VisibilityOp): boolean {
  if (y.outcome !== 'ok' || y === v) return false;
  if (y.invokedAt > v.completedAt) return true;
  return (v.type === 'push' || v.type === 'ensure') && onlyCreationBefore(m, y.completedAt) === v;
}

/** The one push or ensure that may have created the message invoked before `t`; undefined when none or several. */
function onlyCreationBefore(m: MessageOps, t: number): PushOp | EnsureOp | undefined {
  let only: PushOp | EnsureOp | undefined;
  for (const p of m.pushes) {
    if (!mayHaveCreated(p) || p.invokedAt >= t) continue;
    if (only !== undefined) return undefined;
    only = p;
  }
  return only;
}

/**
 * The visibility operations that may still decide the due time of a pop over [invokedAt, completedAt]
 * (docs/CHECKER.md §2.2): invoked before the pop returned, and not overtaken — no ok reschedule, release,
 * ack or remove surely after it (surelyAfter) returned before the pop began. A later push never
 * overtakes: pushing an existing message keeps its earliest due time.
 */
export function decidingOps(m: MessageOps, visible: readonly VisibilityOp[], invokedAt: number, completedAt: number): VisibilityOp[] {
  const out: VisibilityOp[] = [];
  for (const v of visible) {
    if (v.invokedAt < completedAt && !overtakenIn(m, m.reschedules, v, invokedAt) && !overtakenIn(m, m.releases, v, invokedAt) && !overtakenIn(m, m.acks, v, invokedAt) && !overtakenIn(m, m.removes, v, invokedAt)) out.push(v);
  }
  return out;
}

/** Whether an operation of `ops` surely after `v` returned before `invokedAt` (see decidingOps). */
function overtakenIn(m: MessageOps, ops: readonly (RescheduleOp | ReleaseOp | AckOp | RemoveOp)[], v: VisibilityOp, invokedAt: number): boolean {
  for (const y of ops) if (y.completedAt < invokedAt && surelyAfter(m, y, v)) return true;
  return false;
}

/**
 * Whether an ok reschedule or release that returned by `t` surely took effect after `v` (surelyAfter):
 * whatever `v` decided, that one decided it again. Only a push or ensure overlapping it can be
 * superseded so before it returned.
 */
export function supersededBy(m: MessageOps, v: VisibilityOp, t: number): boolean {
  if (v.type !== 'push' && v.type !== 'ensure') return false;
  for (const y of m.reschedules) if (y.completedAt <= t && surelyAfter(m, y, v)) return true;
  for (const y of m.releases) if (y.completedAt <= t && surelyAfter(m, y, v)) return true;
  return false;
}
