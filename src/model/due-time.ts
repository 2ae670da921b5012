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
  return [...m.pushes.filter(mayHaveCreated), ...m.reschedules.filter(mayHaveApplied), ...m.releases.filter(mayHaveApplied)];
}

/**
 * The visibility operations that may still decide the due time of a pop over [invokedAt, completedAt]
 * (docs/CHECKER.md §2.2): invoked before the pop returned, and not overtaken — no later ok reschedule, release,
 * ack or remove both began after it returned and returned before the pop began. A later push never
 * overtakes: pushing an existing message keeps its earliest due time.
 */
export function decidingOps(m: MessageOps, visible: readonly VisibilityOp[], invokedAt: number, completedAt: number): VisibilityOp[] {
  const overtakers = [
    ...m.reschedules.filter((r) => r.outcome === 'ok'),
    ...m.releases.filter((r) => r.outcome === 'ok'),
    ...m.acks.filter((a) => a.outcome === 'ok'),
    ...m.removes.filter((r) => r.outcome === 'ok'),
  ].filter((y) => y.completedAt < invokedAt);
  return visible.filter((v) => v.invokedAt < completedAt && !overtakers.some((y) => y !== v && y.invokedAt > v.completedAt));
}
