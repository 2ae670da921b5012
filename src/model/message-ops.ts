import type { AckOp, DeliverOp, EnsureOp, ExtendOp, HistoryOp, KeptBackOp, PopOp, PushOp, ReleaseOp, RemoveOp, RescheduleOp } from './history.js';

/** The operations of one message, split by type; deliveries, acks, extends and releases in the order they returned. */
export interface MessageOps {
  /** Pushes and ensures: the operations that may create the message. */
  readonly pushes: (PushOp | EnsureOp)[];
  readonly deliveries: DeliverOp[];
  /** Leases a pop took and kept back (leased to nobody), in the order their pops returned. */
  readonly keptBack: KeptBackOp[];
  readonly acks: AckOp[];
  readonly extends: ExtendOp[];
  readonly removes: RemoveOp[];
  readonly reschedules: RescheduleOp[];
  readonly releases: ReleaseOp[];
}

export const mayHaveApplied = (op: { readonly outcome: string }): boolean => op.outcome !== 'fail';

/** Whether a push or ensure may have written the message (an ensure that returned ok without creating did not). */
export const mayHaveCreated = (op: PushOp | EnsureOp): boolean => mayHaveApplied(op) && !(op.type === 'ensure' && op.outcome === 'ok' && op.created === false);

/** A message with no operations yet (see addOp). */
export function noMessageOps(): MessageOps {
  return { pushes: [], deliveries: [], keptBack: [], acks: [], extends: [], removes: [], reschedules: [], releases: [] };
}

/** Adds one of the message's operations (not a pop), in file order; sortByReturn once all are in. */
export function addOp(m: MessageOps, op: Exclude<HistoryOp, PopOp>): void {
  switch (op.type) {
    case 'push':
    case 'ensure':
      m.pushes.push(op);
      break;
    case 'deliver':
      m.deliveries.push(op);
      break;
    case 'kept-back':
      m.keptBack.push(op);
      break;
    case 'ack':
      m.acks.push(op);
      break;
    case 'extend':
      m.extends.push(op);
      break;
    case 'remove':
      m.removes.push(op);
      break;
    case 'reschedule':
      m.reschedules.push(op);
      break;
    case 'release':
      m.releases.push(op);
      break;
  }
}

const byReturn = (a: { completedAt: number }, b: { completedAt: number }) => a.completedAt - b.completedAt;

/** Puts deliveries, acks, extends and releases in the order they returned (a stable sort: file order among equals). */
export function sortByReturn(m: MessageOps): void {
  if (m.deliveries.length > 1) m.deliveries.sort(byReturn);
  if (m.keptBack.length > 1) m.keptBack.sort(byReturn);
  if (m.acks.length > 1) m.acks.sort(byReturn);
  if (m.extends.length > 1) m.extends.sort(byReturn);
  if (m.releases.length > 1) m.releases.sort(byReturn);
}

/** Operations grouped by message, and the pops apart (they are about a shard, not a message). */
export function groupById(history: readonly HistoryOp[]): { readonly byId: Map<string, MessageOps>; readonly pops: PopOp[] } {
  const byId = new Map<string, MessageOps>();
  const pops: PopOp[] = [];
  for (const op of history) {
    if (op.type === 'pop') {
      pops.push(op);
      continue;
    }
    let m = byId.get(op.id);
    if (!m) byId.set(op.id, (m = noMessageOps()));
    addOp(m, op);
  }
  for (const m of byId.values()) sortByReturn(m);
  return { byId, pops };
}

/** The shard and priority of a message, as its pushes (or, failing that, its deliveries) recorded them. */
export function placeOf(m: MessageOps): { readonly shard: string | undefined; readonly priority: number } {
  let shard: string | undefined;
  let priority = 0;
  for (const p of m.pushes) {
    if (!mayHaveCreated(p)) continue;
    if (p.shard !== undefined) shard = p.shard;
    if (p.priority !== undefined) priority = p.priority;
  }
  if (shard === undefined) shard = m.deliveries.find((d) => d.shard !== undefined)?.shard;
  return { shard, priority };
}

/**
 * The priorities a message may have at time t (docs/CHECKER.md §3, priority inversion). A priority belongs to
 * one life of the message, not to its id: an ensure or push after an ok ack or remove may create it
 * again with another priority. The candidates are the priorities of the pushes and ensures that may
 * have created it, invoked before t, whose life did not surely end before t (an ok ack or remove
 * invoked after the push returned and returned before t). The checker takes the most urgent
 * candidate for the message popped and the least urgent for the one left waiting, so an order the
 * history allows never makes an inversion. Found by the brute-force oracle and a full-profile run:
 * one priority per id blamed the first life of a message for the priority of its second.
 */
export function prioritiesAt(m: MessageOps, t: number): number[] {
  const out = livesAt(m, t).map((p) => p.priority ?? 0);
  return out.length > 0 ? out : [placeOf(m).priority];
}

/** The pushes and ensures whose life of the message may be the current one at time t (see prioritiesAt). */
function livesAt(m: MessageOps, t: number): (PushOp | EnsureOp)[] {
  const ends = [...m.acks, ...m.removes].filter((y) => y.outcome === 'ok' && y.completedAt < t);
  return m.pushes.filter((p) => mayHaveCreated(p) && p.invokedAt <= t && !ends.some((y) => y.invokedAt > p.completedAt));
}

/**
 * The shard of the message at time t, when every life it may be in names the same one (a shard, like
 * a priority, belongs to one life: an ensure may create it again on another shard); undefined when
 * they disagree, or else the shard placeOf finds.
 */
export function shardAt(m: MessageOps, t: number): string | undefined {
  const shards = new Set(livesAt(m, t).map((p) => p.shard));
  if (shards.size === 0) return placeOf(m).shard;
  if (shards.size > 1) return undefined;
  return [...shards][0] ?? placeOf(m).shard;
}
