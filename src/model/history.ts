/**
 * The history of one run, on true time: what each client (process) asked and what it was told, as
 * Jepsen records operations. The checker judges only this; it never looks inside the store.
 *
 * This is also the documented JSON-lines format of `dynoq judge`: one operation per line
 * (docs/CHECKER.md §1.1: every public queue operation is an operation of the history).
 */

/**
 * How an operation ended (docs/CHECKER.md §1.2):
 * - `ok`: it returned success; its effect happened.
 * - `fail`: a definite refusal that guarantees no effect (a stale token, a validation error, a
 *   reschedule or release that returned false).
 * - `unknown`: the effect may or may not have happened (timeout, connection lost after sending,
 *   a durability or replicas-disagree error after the write ran, a multi-step call that failed
 *   midway, a call in flight when its client crashed).
 */
export type Outcome = 'ok' | 'fail' | 'unknown';
export const OUTCOMES: readonly Outcome[] = ['ok', 'fail', 'unknown'];

/** When a call was made, by whom, and how it ended: what every operation has. */
interface Call {
  /** The client that made the call (a consumer, a producer). */
  readonly process: string;
  /** When the call was made and when it returned (or was given up), in ms on one true clock. */
  readonly invokedAt: number;
  readonly completedAt: number;
  readonly outcome: Outcome;
}

/** An operation about one message. */
interface Operation extends Call {
  /** The message the call is about. */
  readonly id: string;
}

export interface PushOp extends Operation {
  readonly type: 'push';
  /** The delay asked for: the message is due at invokedAt + delayMs. */
  readonly delayMs: number;
  /** The priority asked for (0 most urgent; absent: 0). */
  readonly priority?: number;
  /** The shard the push was sent to, when the recorder knows it (priority order and late need it). */
  readonly shard?: string;
}

/**
 * ensure: a push that writes only when the message does not exist. `created` says whether it wrote
 * (known only when the outcome is ok); an ensure that did not create has no effect.
 */
export interface EnsureOp extends Operation {
  readonly type: 'ensure';
  readonly delayMs: number;
  readonly priority?: number;
  readonly shard?: string;
  readonly created?: boolean;
}

/** How a delivery was popped: by the schedule (pop, bulk pop, consume…), by id, or by a predicate. */
export type DeliveryVia = 'schedule' | 'id' | 'predicate';
export const DELIVERY_VIAS: readonly DeliveryVia[] = ['schedule', 'id', 'predicate'];

/** A pop (or predicate pop, popWithMsgId…) that returned this message: always `ok`. */
export interface DeliverOp extends Operation {
  readonly type: 'deliver';
  /** The lease the holder was promised, on the true clock: pop invocation + lease length. */
  readonly leaseUntil: number;
  /** How it was popped (absent: by schedule). */
  readonly via?: DeliveryVia;
  /** The shard it came from, when known. */
  readonly shard?: string;
}

/**
 * A message a pop leased and kept back (never handed over): the pop's reply came a whole lease or more
 * after it leased, so that lease may already have run out. It is leased to nobody until `leaseUntil`
 * (at the latest: the pop's return + lease length), then the reaper re-queues it as any expired lease.
 * Always `ok`, with the pop's process and times; the pop line does not count it as delivered.
 */
export interface KeptBackOp extends Operation {
  readonly type: 'kept-back';
  readonly leaseUntil: number;
  /** The shard it was leased from, when known. */
  readonly shard?: string;
}

export interface AckOp extends Operation {
  readonly type: 'ack';
}

/** setUnackTimeout on a held message: the lease now runs to `leaseUntil` when it returned ok. */
export interface ExtendOp extends Operation {
  readonly type: 'extend';
  readonly leaseUntil: number;
}

/** setTimeout: a queued message is due `delayMs` after the call; it acts only on a queued message. */
export interface RescheduleOp extends Operation {
  readonly type: 'reschedule';
  readonly delayMs: number;
}

/** release: the holder hands its lease back; the message is visible again at once. */
export interface ReleaseOp extends Operation {
  readonly type: 'release';
}

export interface RemoveOp extends Operation {
  readonly type: 'remove';
}

/**
 * One pop call, whatever it returned (its messages are `deliver` operations of their own): when it
 * waited, on which shard and how it picks. The late property (docs/CHECKER.md §3) reads waiting pops; an
 * unknown pop may have taken what it could reach. `id` is the target of a pop by id.
 */
export interface PopOp extends Call {
  readonly type: 'pop';
  readonly via: DeliveryVia;
  /** The shard it pops from; absent: any shard (a predicate over every shard, or unknown). */
  readonly shard?: string;
  readonly id?: string;
  /** Messages it returned. */
  readonly delivered: number;
}

/** The operations about one message (everything but pops). */
export type MessageOp = PushOp | EnsureOp | DeliverOp | KeptBackOp | AckOp | ExtendOp | RescheduleOp | ReleaseOp | RemoveOp;
export type HistoryOp = MessageOp | PopOp;
export type OpType = HistoryOp['type'];
export const OP_TYPES = [
  'push',
  'ensure',
  'deliver',
  'kept-back',
  'ack',
  'extend',
  'reschedule',
  'release',
  'remove',
  'pop',
] as const satisfies readonly OpType[];

/**
 * The history format's version (the `run` line's `version`): 1 knew push, deliver, ack, extend, remove;
 * 2 added ensure, reschedule, release, pop, priority, shard and via; 3 added fault lines, operations in
 * flight at the end (no completedAt) and keeps fields it does not know; 4 added the `end` line (when
 * the recording stopped); 5 added `kept-back` (a lease a pop kept back). A newer version is refused.
 */
export const HISTORY_FORMAT_VERSION = 5;

export interface RunPhases {
  /** When the liveness phase began (faults healed) and when the run ended. */
  readonly livenessStart: number;
  readonly end: number;
  /**
   * Consumer loops that ended on their own before the run did (not crashed, not stopped by the
   * run's end), each with the shard it popped and when it ended: what keeps consuming judges.
   */
  readonly stopped?: readonly StoppedConsumer[];
}

/** A consumer loop that ended before the run did. */
export interface StoppedConsumer {
  readonly process: string;
  readonly shard: string;
  readonly at: number;
}

export interface CheckerSettings {
  /** Reaper period (ms), part of the recovery allowance. */
  readonly reaperIntervalMs: number;
  /** The stated recovery bound (ms) on top of lease deadline + reaper period. */
  readonly recoveryBoundMs: number;
  /**
   * The delivery bound B (docs/CHECKER.md §2.4, ms): how long a waiting pop may go without a free and due
   * message of its shard. Absent: delivered promptly and priority order are not judged.
   */
  readonly deliveryBoundMs?: number;
}
