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
   * Set (> 0) when the call leased this many more messages than it returns: their lease may have run
   * out before the call could return them (a reply held up a whole lease), so they are left to the
   * reaper. Nobody holds them until it re-queues them.
   */
  readonly leasesKeptBack?: number;
};

/** The messages whose lease still runs, marked with how many were kept back (none: `leased` itself). */
export function withoutKeptBack(leased: PoppedMessage[], stillHeld: readonly boolean[]): PoppedBatch {
  const kept = leased.filter((_, i) => stillHeld[i]);
  return kept.length === leased.length ? leased : Object.assign(kept, { leasesKeptBack: leased.length - kept.length });
}

/**
 * Ends a pop on a store error. Nothing leased: the error is thrown. Something leased: the messages
 * still held are returned with the error attached (and how many were kept back, when some were; all
 * of them may be). Releasing them instead would go down the connection that just failed; when that
 * fails too they would stay leased to nobody for a whole lease while their caller was waiting for them.
 */
export function keepLeased(leased: PoppedBatch, error: unknown): PoppedBatch {
  const keptBack = leased.leasesKeptBack ?? 0;
  if (leased.length === 0 && keptBack === 0) throw error;
  return Object.assign([...leased], keptBack > 0 ? { error, leasesKeptBack: keptBack } : { error });
}

