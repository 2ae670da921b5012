import type { PoppedMessage } from './message.js';

/**
 * What `pop` and `bulkPop` return: the messages leased to the caller. `error` is set only when the
 * call stopped on a store error after it had already leased these (a later long-poll attempt, or a
 * later claim step in legacy mode): they are the caller's to ack or release, and the error says why
 * fewer came back. A call that fails before leasing anything throws instead.
 */
export type PoppedBatch = PoppedMessage[] & {
  readonly error?: unknown;
  /**
   * Set (never empty) when the call leased more messages than it returns: the ids of those whose lease
   * may have run out before the call could return them (a reply held up a whole lease). They are left
   * to the reaper; nobody holds them until it re-queues them.
   */
  readonly keptBack?: readonly string[];
};

/** The messages whose lease still runs, with the ids of the others kept back (none: `leased` itself). */
export function withoutKeptBack(leased: PoppedMessage[], stillHeld: readonly boolean[]): PoppedBatch {
  if (stillHeld.every(Boolean)) return leased;
  const kept = leased.filter((_, i) => stillHeld[i]);
  return Object.assign(kept, { keptBack: leased.filter((_, i) => !stillHeld[i]).map((m) => m.id) });
}

/**
 * Ends a pop on a store error. Nothing leased: the error is thrown. Something leased: the messages
 * still held are returned with the error attached (and the ids kept back, when some were; all of them
 * may be). Releasing them instead would go down the connection that just failed; when that fails too
 * they would stay leased to nobody for a whole lease while their caller was waiting for them.
 */
export function keepLeased(leased: PoppedBatch, error: unknown): PoppedBatch {
  const keptBack = leased.keptBack;
  if (leased.length === 0 && keptBack === undefined) throw error;
  return Object.assign([...leased], keptBack !== undefined ? { error, keptBack } : { error });
}
