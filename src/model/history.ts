/**
 * The history of one run, on true virtual time: what each client asked and what it was told.
 * The checker judges only this; it never looks inside the store.
 */
export type HistoryEvent =
  | {
      readonly type: 'push';
      /** When the push was invoked and when it returned. */
      readonly invokedAt: number;
      readonly t: number;
      readonly actor: string;
      readonly id: string;
      readonly delayMs: number;
      readonly ok: boolean;
    }
  | {
      readonly type: 'deliver';
      readonly invokedAt: number;
      readonly t: number;
      readonly actor: string;
      readonly id: string;
      /** The lease the holder was promised: pop invocation + lease length, on the true clock. */
      readonly leaseUntil: number;
    }
  | {
      readonly type: 'ack';
      readonly invokedAt: number;
      readonly t: number;
      readonly actor: string;
      readonly id: string;
      readonly ok: boolean;
    }
  | {
      readonly type: 'extend';
      readonly invokedAt: number;
      readonly t: number;
      readonly actor: string;
      readonly id: string;
      readonly ok: boolean;
      readonly leaseUntil: number;
    }
  | {
      readonly type: 'remove';
      readonly invokedAt: number;
      readonly t: number;
      readonly actor: string;
      readonly id: string;
      readonly ok: boolean;
    };

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
