import { DynoqError } from '../errors/dynoq-errors.js';

export { DynoqError, InvalidArgumentError, UnsupportedOnStoreError } from '../errors/dynoq-errors.js';

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
