/** Every error the queue raises on purpose carries a stable `code`. */
export abstract class DynoqError extends Error {
  abstract readonly code: string;
}

/** A message field that is not acceptable; nothing was written. */
export class InvalidMessageError extends DynoqError {
  readonly code = 'INVALID_MESSAGE';
  constructor(
    readonly field: string,
    readonly reason: string,
    readonly messageId?: string,
  ) {
    super(`invalid message${messageId ? ` ${JSON.stringify(messageId)}` : ''}: ${field} ${reason}`);
    this.name = 'InvalidMessageError';
  }
}

/**
 * An option the store cannot keep (e.g. server time or durable writes on Dynomite, where every
 * replica re-executes scripts with its own clock and WAIT closes the connection). Raised when the
 * queue is built, before anything is written.
 */
export class UnsupportedOnStoreError extends DynoqError {
  readonly code = 'UNSUPPORTED_ON_STORE';
  constructor(
    readonly option: string,
    readonly store: string,
    readonly reason: string,
  ) {
    super(`${option} is not supported on ${store}: ${reason}`);
    this.name = 'UnsupportedOnStoreError';
  }
}

/** An argument or option that is not acceptable; nothing was written. */
export class InvalidArgumentError extends DynoqError {
  readonly code = 'INVALID_ARGUMENT';
  constructor(
    readonly argument: string,
    readonly reason: string,
  ) {
    super(`invalid ${argument}: ${reason}`);
    this.name = 'InvalidArgumentError';
  }
}

export class QueueClosedError extends DynoqError {
  readonly code = 'QUEUE_CLOSED';
  constructor(readonly queue: string) {
    super(`queue ${queue} is closed`);
    this.name = 'QueueClosedError';
  }
}

/**
 * Durable writes: the write was applied on the primary but fewer replicas than asked confirmed it
 * within the timeout, so a failover may still lose it. Treat the operation as not acknowledged.
 */
export class DurabilityError extends DynoqError {
  readonly code = 'NOT_DURABLE';
  constructor(
    readonly operation: string,
    readonly ids: readonly string[],
    readonly wanted: number,
    readonly confirmed: number,
  ) {
    super(`${operation} of ${ids.length} message(s) confirmed by ${confirmed} of ${wanted} replicas`);
    this.name = 'DurabilityError';
  }
}

/**
 * A predicate pattern needed more matching steps on one payload than its budget allows (see
 * `patternStepBudget`): a backtracking pattern such as `.-.-.-b`. Nothing was changed; the match runs
 * in the client, so Redis was never blocked by it.
 */
export class PatternTooComplexError extends DynoqError {
  readonly code = 'PATTERN_TOO_COMPLEX';
  constructor(
    readonly pattern: string,
    readonly messageId: string,
    readonly payloadBytes: number,
    readonly budget: number,
  ) {
    super(
      `pattern ${JSON.stringify(pattern.length > 64 ? `${pattern.slice(0, 64)}…` : pattern)} needs more than ${budget} steps on the ${payloadBytes}-byte payload of ${JSON.stringify(messageId)}`,
    );
    this.name = 'PatternTooComplexError';
  }
}
