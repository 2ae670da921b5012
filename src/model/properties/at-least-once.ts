import { decidingOps, latestDue, visibilityOps } from '../due-time.js';
import { unknownPopsReaching } from '../free-intervals.js';
import type { Hold } from '../holds.js';
import type { EnsureOp, PopOp, PushOp } from '../history.js';
import { mayHaveApplied, mayHaveCreated, placeOf, type MessageOps } from '../message-ops.js';
import { property } from './judging.js';

export const atLeastOnce = property({
  name: 'atLeastOnce',
  label: 'at-least-once',
  means: 'every acknowledged push is processed (acked) or removed by the end',
  exercisedWhen: 'a push returned ok',
  kinds: {
    'script-time-limit': { label: 'script past the time limit (Redis answers BUSY)', rank: 1, why: 'a script that never ends: Redis answers `BUSY` to every other client, so nothing at all is processed until it is killed.' },
    'lost-never-delivered': { label: 'lost (never delivered)', rank: 2, why: 'work silently never done; nothing downstream can notice or repair it.' },
    'lost-after-delivery': { label: 'lost (delivered, then dropped)', rank: 3, why: 'work silently never done, its deliveries all dropped; nothing downstream can notice or repair it.' },
    'event-budget': { label: 'run past its event budget (never ends)', rank: 4, why: 'a run that never ends cannot finish its work either.' },
  },
  brokenBy: '**lost**: an ok push not acked ok/unknown nor removed by the end — **never delivered**, or **delivered, then dropped** (every delivery ended without an ok/unknown ack and nothing delivered it again) (a message not due by the end, plus B, is not owed; nor is one still held at the end (§2.1), or one that a pop still in flight at the end may have taken: its processing is unknown)',
  brokenInSimulationsBy: '**script past the time limit (Redis answers BUSY)**: a script call ran past its step budget ([SCENARIOS.md](SCENARIOS.md#budgets)). Redis would run it on past its script time limit and answer `BUSY` to every other client until it ended, and a script that has written cannot be killed: nothing is processed after it. **run past its event budget (never ends)**: the run executed more events than its budget. Either stops the run there; what only the end of a run decides (at-least-once, un-ack recovery, delivered promptly) is then not judged, the stop is the finding',
  /**
   * At-least-once is about processing: the latest push that returned ok must be followed by an ack
   * that returned ok or unknown, or a remove that may have applied, by the end of the run. A message
   * not yet due by the end (its latest due time plus the delivery bound) is not owed. Nor is one still
   * held when the history ends (its holder may yet ack it) or one that a pop still in flight at the end
   * may have taken: whether it is processed is unknown, not lost (see stillOpenAtEnd).
   */
  judgeMessage: ({ id, m, holds, popsAtEnd, phases, settings, found, exercised }) => {
    // Loops, not closures: this runs for every message of a history of millions.
    let anyOk = false;
    for (const p of m.pushes) if (p.outcome === 'ok') anyOk = true;
    if (anyOk) exercised();
    // The latest ok push (the first of those invoked at the same latest time).
    let last: PushOp | EnsureOp | undefined;
    for (const p of m.pushes) if (p.outcome === 'ok' && mayHaveCreated(p) && (last === undefined || p.invokedAt > last.invokedAt)) last = p;
    if (last === undefined) return;
    const since = last.invokedAt;
    for (const a of m.acks) if (mayHaveApplied(a) && a.completedAt >= since) return;
    for (const r of m.removes) if (mayHaveApplied(r) && r.completedAt >= since) return;
    const deciding = decidingOps(m, visibilityOps(m), phases.end, phases.end);
    let dueBy = latestDue(last);
    for (const v of deciding) dueBy = Math.max(dueBy, latestDue(v));
    if (dueBy + (settings.deliveryBoundMs ?? 0) > phases.end) return;
    if (stillOpenAtEnd(id, m, holds, popsAtEnd, last, phases.end)) return;
    const after = m.deliveries.filter((d) => d.completedAt >= since);
    if (after.length === 0) {
      found('lost-never-delivered', phases.end, [last.process], `pushed at ${last.completedAt}, never delivered`);
    } else {
      const endings = after.map((d) => d.process).join(', ');
      found('lost-after-delivery', phases.end, [last.process, ...after.map((d) => d.process)], `pushed at ${last.completedAt}, delivered to ${endings}, never acked`);
    }
  },
});

/**
 * Whether the message's processing since `last` (its latest ok push) was still open when the history
 * ended: a delivery since then still held at the end (not acked, released or removed, its lease not
 * yet over), or a pop in flight at the end that could have taken it (its shard, any shard, or it by id).
 */
export function stillOpenAtEnd(id: string, m: MessageOps, holds: readonly Hold[], popsAtEnd: readonly PopOp[], last: { readonly invokedAt: number }, end: number): boolean {
  if (holds.some((h) => h.d.completedAt >= last.invokedAt && !h.ack && !h.release && h.until >= end)) return true;
  if (popsAtEnd.length === 0) return false;
  return unknownPopsReaching(popsAtEnd, id, placeOf(m).shard).length > 0;
}
