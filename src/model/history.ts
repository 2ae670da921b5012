/**
 * The history of one run, on true time: what each client (process) asked and what it was told, as
 * Jepsen records operations. The checker judges only this; it never looks inside the store.
 *
 * This is also the documented JSON-lines format of `dynoq judge`: one operation per line.
 */

/**
 * How an operation ended (SPEC §6.1):
 * - `ok`: it returned success; its effect happened.
 * - `fail`: a definite refusal that guarantees no effect (a stale token, a validation error).
 * - `unknown`: the effect may or may not have happened (timeout, connection lost after sending,
 *   a durability or replicas-disagree error after the write ran, a multi-step call that failed
 *   midway, a call in flight when its client crashed).
 */
export type Outcome = 'ok' | 'fail' | 'unknown';
export const OUTCOMES: readonly Outcome[] = ['ok', 'fail', 'unknown'];

interface Operation {
  /** The client that made the call (a consumer, a producer). */
  readonly process: string;
  /** The message the call is about. */
  readonly id: string;
  /** When the call was made and when it returned (or was given up), in ms on one true clock. */
  readonly invokedAt: number;
  readonly completedAt: number;
  readonly outcome: Outcome;
}

export interface PushOp extends Operation {
  readonly type: 'push';
  /** The delay asked for: the message is due at invokedAt + delayMs. */
  readonly delayMs: number;
}

/** A pop (or predicate pop, popWithMsgId…) that returned this message: always `ok`. */
export interface DeliverOp extends Operation {
  readonly type: 'deliver';
  /** The lease the holder was promised, on the true clock: pop invocation + lease length. */
  readonly leaseUntil: number;
}

export interface AckOp extends Operation {
  readonly type: 'ack';
}

/** setUnackTimeout on a held message: the lease now runs to `leaseUntil` when it returned ok. */
export interface ExtendOp extends Operation {
  readonly type: 'extend';
  readonly leaseUntil: number;
}

export interface RemoveOp extends Operation {
  readonly type: 'remove';
}

export type HistoryOp = PushOp | DeliverOp | AckOp | ExtendOp | RemoveOp;
export type OpType = HistoryOp['type'];

export interface RunPhases {
  /** When the liveness phase began (faults healed) and when the run ended. */
  readonly livenessStart: number;
  readonly end: number;
}

export interface CheckerSettings {
  /** Reaper period (ms), part of the recovery allowance. */
  readonly reaperIntervalMs: number;
  /** The stated recovery bound (ms) on top of lease deadline + reaper period. */
  readonly recoveryBoundMs: number;
}
