import type { PoppedMessage } from './message.js';

/**
 * What `pop` and `bulkPop` return: the messages leased to the caller. `error` is set only when the
 * call stopped on a store error after it had already leased these (a later long-poll attempt, or a
 * later claim step in legacy mode): they are the caller's to ack or release, and the error says why
 * fewer came back. A call that fails before leasing anything throws instead.
 */
export type PoppedBatch = PoppedMessage[] & { readonly error?: unknown };

/**
 * Ends a pop on a store error. Nothing leased: the error is thrown. Something leased: the messages
 * are returned with the error attached. Releasing them instead would go down the connection that
 * just failed; when that fails too they would stay leased to nobody for a whole lease while their
 * caller was waiting for them.
 */
export function keepLeased(leased: readonly PoppedMessage[], error: unknown): PoppedBatch {
  if (leased.length === 0) throw error;
  return Object.assign([...leased], { error });
}

