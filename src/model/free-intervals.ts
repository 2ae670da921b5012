import type { PopOp } from './history.js';
import { latestDue, supersededBy, type VisibilityOp } from './due-time.js';
import { mayHaveApplied, mayHaveCreated, type MessageOps } from './message-ops.js';

/** A time span [from, to) in which a message was surely free and due (docs/CHECKER.md §2.3). */
export interface FreeInterval {
  readonly id: string;
  readonly priority: number;
  readonly from: number;
  readonly to: number;
}

type Step = { readonly t: number; readonly run: () => void; readonly last?: boolean };

/**
 * When a message was surely free and due: pushed (the push returned ok), its latest possible due time
 * passed, not held (from the invocation of any pop that delivered it, or of an unknown pop that could
 * have taken it; still not at its return), not acked or removed (ok or unknown, from the invocation), and no push, ensure,
 * reschedule or release of it in flight. An unknown visibility operation leaves it uncertain until
 * the next ok one that surely came after it; an ok reschedule or release that found the message a push
 * made decides over that push (docs/CHECKER.md §2.2). A message whose lease ran out is not free again
 * until something visible (a release, a push) says so: the reaper's re-queue is not in the history.
 */
export function freeIntervals(id: string, priorityAt: number | ((t: number) => number), m: MessageOps, takenBy: readonly PopOp[], end: number): FreeInterval[] {
  let queued = false;
  let uncertain = false;
  let inFlight = 0;
  let due = Infinity;
  const steps: Step[] = [];
  const visibility = [...m.pushes, ...m.reschedules, ...m.releases];
  // Operations after which the message is gone (taken, acked, removed), whenever they took effect. One
  // that overlaps a visibility operation may have come after it, so that operation proves nothing free:
  // a pop waiting [203, 256] returned m5 pushed at [252, 256]; counted free from 256 on, m5 was blamed late.
  const takers: { invokedAt: number; completedAt: number }[] = [...m.deliveries, ...m.keptBack, ...m.acks.filter(mayHaveApplied), ...m.removes.filter(mayHaveApplied), ...takenBy];
  const overlapsATaker = (v: { invokedAt: number; completedAt: number }) => takers.some((g) => g.invokedAt <= v.completedAt && g.completedAt >= v.invokedAt);
  // An unknown one that returned while this ok one was in flight may have taken effect after it (unless
  // an ok reschedule or release found the message it made): still uncertain. A push [529, 540] and an
  // unknown reschedule [532, 534] of the message it made: the reschedule may have applied after the push.
  const unknownMayFollow = (v: VisibilityOp) => visibility.some((u) => u !== v && u.outcome === 'unknown' && u.completedAt >= v.invokedAt && u.completedAt <= v.completedAt && !supersededBy(m, u, v.completedAt));
  for (const v of visibility) {
    steps.push({ t: v.invokedAt, run: () => inFlight++ });
    steps.push({
      t: v.completedAt,
      run: () => {
        inFlight--;
        // An ok reschedule or release that already returned found the message this push made: it came
        // after it, and what it decided stands (docs/CHECKER.md §2.2, surelyAfter).
        if (supersededBy(m, v, v.completedAt)) return;
        if (v.outcome === 'unknown') uncertain = true;
        if (v.outcome !== 'ok') return;
        if ((v.type === 'push' || v.type === 'ensure') && !mayHaveCreated(v)) return;
        if (overlapsATaker(v)) {
          queued = false;
          return;
        }
        queued = true;
        uncertain = unknownMayFollow(v);
        due = latestDue(v);
      },
    });
  }
  // Gone from its invocation, and still gone at its return: whatever became visible meanwhile (a push
  // the pop was waiting for) came before the take.
  // While a taker is in flight it may take the message at any instant, also after something made it
  // visible again meanwhile: not surely free until it returned. Found by the brute-force oracle: a
  // release returned at 112 inside an unknown pop [13, 263] of its shard, and the message was counted
  // free from 112 (late blamed on an ok pop that the unknown one may have beaten to it).
  let taking = 0;
  const goneDuring = (op: { invokedAt: number; completedAt: number }) => {
    steps.push({
      t: op.invokedAt,
      run: () => {
        queued = false;
        taking++;
      },
    });
    steps.push({
      t: op.completedAt,
      run: () => {
        queued = false;
        taking--;
      },
      last: true,
    });
  };
  for (const a of m.acks) if (mayHaveApplied(a)) goneDuring(a);
  for (const r of m.removes) if (mayHaveApplied(r)) goneDuring(r);
  for (const d of m.deliveries) goneDuring(d);
  // A lease a pop kept back: taken from the pop's invocation, like a delivery whose lease then ran out.
  for (const k of m.keptBack) goneDuring(k);
  for (const p of takenBy) goneDuring(p);
  steps.sort((a, b) => a.t - b.t || (a.last ? 1 : 0) - (b.last ? 1 : 0));
  const out: FreeInterval[] = [];
  let openFrom: number | null = null;
  const close = (t: number) => {
    if (openFrom !== null && t > openFrom) out.push({ id, priority: typeof priorityAt === 'number' ? priorityAt : priorityAt(openFrom), from: openFrom, to: t });
    openFrom = null;
  };
  let i = 0;
  while (i < steps.length) {
    const t = steps[i]!.t;
    while (i < steps.length && steps[i]!.t === t) steps[i++]!.run();
    const next = i < steps.length ? steps[i]!.t : end;
    const free = queued && !uncertain && inFlight === 0 && taking === 0;
    if (!free) {
      close(t);
      continue;
    }
    // A reschedule that began and returned at this instant (no time in flight) moved the due time on:
    // the stretch ends here. Found by the brute-force oracle: push m3 at [0, 2], ok reschedule to +300
    // at [103, 103]; m3 was counted free and due from 2 straight through 403.
    if (openFrom !== null && due > t) close(t);
    if (openFrom === null && due < next) openFrom = Math.max(t, due);
  }
  close(end);
  // A free span that a later step did not end runs to the end of the history.
  return out;
}

/** Unknown pops that could have taken this message (its shard, any shard, or it by id). */
export function unknownPopsReaching(pops: readonly PopOp[], id: string, shard: string | undefined): PopOp[] {
  return pops.filter((p) => p.outcome === 'unknown' && (p.via === 'id' ? p.id === id : p.shard === undefined || shard === undefined || p.shard === shard));
}
