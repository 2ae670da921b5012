import type { DeliveryVia, HistoryOp, Outcome } from './history.js';

/** A message as a push or ensure sends it, as the history records it. */
export interface PushedMessage {
  readonly id: string;
  readonly delayMs: number;
  readonly priority: number;
}

/**
 * One part of a queue call, known when the call is made, so that a call still in flight when its
 * client crashes (or the recording ends) is recorded with every operation it may have done. A
 * combined call (ackAndPop) has several parts.
 */
export type CallPart =
  | { readonly type: 'push' | 'ensure'; readonly messages: readonly PushedMessage[] }
  | { readonly type: 'ack' | 'remove' | 'release'; readonly ids: readonly string[] }
  | { readonly type: 'reschedule'; readonly id: string; readonly delayMs: number }
  | { readonly type: 'extend'; readonly id: string; readonly leaseUntil: number }
  | { readonly type: 'pop'; readonly via: DeliveryVia; readonly shard?: string; readonly id?: string };

/** A message a pop part returned: the holder's lease runs to `leaseUntil` on the history's clock. */
export interface Delivered {
  readonly id: string;
  readonly shard: string;
  readonly leaseUntil: number;
}

/** What a call that returned said, beyond its outcome. */
export interface CallResult {
  /** Whether each id of the call's ack part was acked, in order (ackMany: an item that returned false is `fail`). */
  readonly acked?: readonly boolean[];
  /** ensure: whether it created the message. */
  readonly created?: boolean;
  /** What its pop part returned. */
  readonly delivered?: readonly Delivered[];
  /** What its pop part leased and kept back (its reply came a whole lease late), and the lease length. */
  readonly keptBack?: { readonly ids: readonly string[]; readonly leaseMs: number };
}

/** A call as the history sees it: who made it, and when it was made and returned. */
export interface CallTimes {
  readonly process: string;
  readonly invokedAt: number;
  readonly completedAt: number;
}

export interface CallOperationsOptions {
  /** The shard the queue picked for a pushed or ensured message, read when the call ends. */
  readonly shardOf?: (id: string) => string | undefined;
  /** What the recorder knows beyond the reply: a refusal a replica applied anyway is `unknown` (the simulator's). */
  readonly settle?: (outcome: Outcome) => Outcome;
}

/**
 * The operations of one call (docs/CHECKER.md §1.1): its message operations in the order of its
 * parts, then for its pop part a `deliver` per message returned, a `kept-back` per message it leased
 * and kept back, and the `pop` line. `returned` is
 * the call's outcome as the recorder saw it (ok with the result, or a throw's outcome); `outcome`
 * is the call's settled outcome. A pop's deliveries are ok whatever else the call did: the
 * messages are in the caller's hands.
 */
export function callOperations(
  call: CallTimes,
  parts: readonly CallPart[],
  returned: Outcome,
  result: CallResult,
  options: CallOperationsOptions = {},
): { readonly ops: HistoryOp[]; readonly outcome: Outcome } {
  const settle = options.settle ?? ((o: Outcome) => o);
  const outcome = settle(returned);
  const base = { process: call.process, invokedAt: call.invokedAt, completedAt: call.completedAt };
  const ops: HistoryOp[] = [];
  for (const part of parts) {
    switch (part.type) {
      case 'push':
      case 'ensure':
        for (const m of part.messages) {
          const shard = options.shardOf?.(m.id);
          const where = { delayMs: m.delayMs, priority: m.priority, ...(shard !== undefined ? { shard } : {}) };
          if (part.type === 'push') ops.push({ type: 'push', ...base, outcome, id: m.id, ...where });
          else ops.push({ type: 'ensure', ...base, outcome, id: m.id, ...where, ...(outcome === 'ok' && result.created !== undefined ? { created: result.created } : {}) });
        }
        break;
      case 'ack':
        part.ids.forEach((id, i) => {
          const acked = result.acked?.[i];
          ops.push({ type: 'ack', ...base, id, outcome: acked === undefined ? outcome : settle(acked ? 'ok' : 'fail') });
        });
        break;
      case 'remove':
      case 'release':
        for (const id of part.ids) ops.push({ type: part.type, ...base, id, outcome });
        break;
      case 'reschedule':
        ops.push({ type: 'reschedule', ...base, id: part.id, outcome, delayMs: part.delayMs });
        break;
      case 'extend':
        ops.push({ type: 'extend', ...base, id: part.id, outcome, leaseUntil: part.leaseUntil });
        break;
      case 'pop':
        break;
    }
  }
  for (const part of parts) {
    if (part.type !== 'pop') continue;
    const delivered = returned === 'ok' || (result.delivered?.length ?? 0) > 0 ? (result.delivered ?? []) : [];
    for (const d of delivered) {
      ops.push({ type: 'deliver', process: call.process, id: d.id, invokedAt: call.invokedAt, completedAt: call.completedAt, outcome: 'ok', leaseUntil: d.leaseUntil, via: part.via, shard: d.shard });
    }
    // Leased to nobody until, at the latest, the pop's return + the lease (the store set it before the reply).
    for (const id of result.keptBack?.ids ?? []) {
      ops.push({ type: 'kept-back', process: call.process, id, invokedAt: call.invokedAt, completedAt: call.completedAt, outcome: 'ok', leaseUntil: call.completedAt + result.keptBack!.leaseMs, ...(part.shard !== undefined ? { shard: part.shard } : {}) });
    }
    ops.push({
      type: 'pop',
      ...base,
      // The call's outcome when that is unknown: a pop that came back with a store error after leasing
      // (PoppedBatch.error) may have leased more to nobody, and it did not just wait (late reads ok pops).
      outcome: delivered.length > 0 && outcome !== 'unknown' ? 'ok' : outcome,
      via: part.via,
      ...(part.shard !== undefined ? { shard: part.shard } : {}),
      ...(part.id !== undefined ? { id: part.id } : {}),
      delivered: delivered.length,
    });
  }
  return { ops, outcome };
}
