import type { AckOp, DeliverOp, EnsureOp, ExtendOp, HistoryOp, PopOp, PushOp, ReleaseOp, RemoveOp, RescheduleOp } from './history.js';

/** The operations of one message, split by type; deliveries, acks, extends and releases in the order they returned. */
export interface MessageOps {
  /** Pushes and ensures: the operations that may create the message. */
  readonly pushes: (PushOp | EnsureOp)[];
  readonly deliveries: DeliverOp[];
  readonly acks: AckOp[];
  readonly extends: ExtendOp[];
  readonly removes: RemoveOp[];
  readonly reschedules: RescheduleOp[];
  readonly releases: ReleaseOp[];
}

export const mayHaveApplied = (op: { readonly outcome: string }): boolean => op.outcome !== 'fail';

/** Whether a push or ensure may have written the message (an ensure that returned ok without creating did not). */
export const mayHaveCreated = (op: PushOp | EnsureOp): boolean => mayHaveApplied(op) && !(op.type === 'ensure' && op.outcome === 'ok' && op.created === false);

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
    if (!m) byId.set(op.id, (m = { pushes: [], deliveries: [], acks: [], extends: [], removes: [], reschedules: [], releases: [] }));
    switch (op.type) {
      case 'push':
      case 'ensure':
        m.pushes.push(op);
        break;
      case 'deliver':
        m.deliveries.push(op);
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
  for (const m of byId.values()) {
    m.deliveries.sort(byReturn);
    m.acks.sort(byReturn);
    m.extends.sort(byReturn);
    m.releases.sort(byReturn);
  }
  return { byId, pops };
}

/** Where a message lives and how urgent it is: set by the push or ensure that (last) created it. */
export interface Place {
  readonly shard: string | undefined;
  readonly priority: number;
}

const placeOfOp = (p: PushOp | EnsureOp): Place => ({ shard: p.shard, priority: p.priority ?? 0 });

/**
 * The place of a message at time t: that of the latest push or ensure that may have created it and
 * was invoked before t (a message removed and ensured again may move shard and priority); before any,
 * the first one's. A delivery's shard fills in a push that did not record one.
 */
export function placeAt(m: MessageOps, t: number): Place {
  let chosen: PushOp | EnsureOp | undefined;
  for (const p of m.pushes) {
    if (!mayHaveCreated(p)) continue;
    if (!chosen || (p.invokedAt < t && (chosen.invokedAt >= t || p.invokedAt > chosen.invokedAt))) chosen = p;
  }
  const place = chosen ? placeOfOp(chosen) : { shard: undefined, priority: 0 };
  if (place.shard !== undefined) return place;
  return { ...place, shard: m.deliveries.find((d) => d.shard !== undefined)?.shard };
}

/** Every shard the message may have lived on. */
export function shardsOf(m: MessageOps): Set<string> {
  const shards = new Set<string>();
  for (const p of m.pushes) if (mayHaveCreated(p) && p.shard !== undefined) shards.add(p.shard);
  for (const d of m.deliveries) if (d.shard !== undefined) shards.add(d.shard);
  return shards;
}
