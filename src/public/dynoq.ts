/**
 * `dynoq` — the queue library: createQueue (system clock and timers by default), the ioredis store
 * and `connect`, errors and types. Nothing here imports the simulator or fast-check.
 */
import { createQueue as createQueueWith } from '../queue/create-queue.js';
import { MultiQueue, type MultiQueueOptions } from '../queue/multi-queue.js';
import type { BaseQueue } from '../queue/base-queue.js';
import type { QueueOptionsInput } from '../queue/options.js';
import type { Clock, Timers } from '../queue/time.js';
import { systemClock, systemTimers } from '../runtime/system-time.js';

/** Queue options as a user writes them: `clock` and `timers` default to the process's own. */
export type CreateQueueOptions = Omit<QueueOptionsInput, 'clock' | 'timers'> & {
  /** Default: the system clock (Date.now). Inject another for tests or simulations. */
  readonly clock?: Clock;
  /** Default: the system timers (setTimeout). */
  readonly timers?: Timers;
};

/** Builds a queue in the mode its options name (atomic by default). Options are validated first. */
export function createQueue(options: CreateQueueOptions): BaseQueue {
  const { clock, timers, ...rest } = options;
  return createQueueWith({ ...rest, clock: clock ?? systemClock, timers: timers ?? systemTimers } as QueueOptionsInput);
}

/** Multi-master queue options as a user writes them: `clock` and `timers` default to the process's own. */
export type CreateMultiQueueOptions = Omit<MultiQueueOptions, 'clock' | 'timers'> & {
  readonly clock?: Clock;
  readonly timers?: Timers;
};

/** One queue over several Redis masters (Dyno v2's MultiRedisQueue); see MultiQueue. */
export function createMultiQueue(options: CreateMultiQueueOptions): MultiQueue {
  const { clock, timers, ...rest } = options;
  return new MultiQueue({ ...rest, clock: clock ?? systemClock, timers: timers ?? systemTimers } as MultiQueueOptions);
}

// Everything src/queue exports, but createQueue and createMultiQueue are the ones above (local exports win over `export *`).
export * from '../queue/index.js';
export { systemClock, systemTimers } from '../runtime/system-time.js';
export type { Store, ScoreBound, ScoredMember, RangeLimit, ZAddOptions } from '../store/store.js';
export type { ScriptDef, ScriptReply } from '../redis/script.js';
export { UnsupportedStoreFeatureError } from '../store/errors.js';
export { IoredisStore } from '../store/ioredis-store.js';
export type { IoredisStoreOptions } from '../store/ioredis-store.js';
export { UnsafeClientError, DatabaseRefusedError, StoreFullError, EvictionPolicyError } from '../store/errors.js';
export { clientSafetyProblems } from '../store/client-safety.js';
export { connect, safeRedisOptions } from '../store/connect.js';
export type { ConnectOptions, DynomiteOptions, HostPort } from '../store/connect.js';
