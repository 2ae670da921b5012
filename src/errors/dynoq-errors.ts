/* The errors both the store and the queue raise (the store sits below the queue, so they live below both). */

/** Every error the queue raises on purpose carries a stable `code`. */
export abstract class DynoqError extends Error {
  abstract readonly code: string;
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
