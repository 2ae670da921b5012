import { DynoqError } from '../errors/dynoq-errors.js';

/**
 * The Redis a check was pointed at could not be used (refused, timed out, closed, refused the
 * credentials, read-only, loading): a set-up problem, not a verdict on the queue. `cause` is the error seen.
 */
export class RedisUnavailableError extends DynoqError {
  readonly code = 'REDIS_UNAVAILABLE';
  constructor(
    readonly target: string,
    cause: unknown,
  ) {
    super(`cannot use the Redis at ${target}: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
    this.name = 'RedisUnavailableError';
  }
}

const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN']);
const CLIENT_NAMES = new Set(['MaxRetriesPerRequestError', 'ClusterAllFailedError']);
const CLIENT_MESSAGES = [/^Connection is closed/, /^Command timed out/, /^Stream isn't writeable/, /^None of startup nodes is available/];
/** Replies saying the server (or this connection to it) cannot serve the check, whatever the queue does. */
const SERVER_REPLIES = /^(NOAUTH|WRONGPASS|NOPERM|READONLY|LOADING|MASTERDOWN|CLUSTERDOWN|MISCONF|OOM)\b/;

function isUnavailability(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  const code = (err as { code?: unknown }).code;
  return (
    (typeof code === 'string' && NETWORK_CODES.has(code)) || CLIENT_NAMES.has(err.name) || CLIENT_MESSAGES.some((m) => m.test(err.message)) || SERVER_REPLIES.test(err.message)
  );
}

/** The first error along `err`'s cause chain that says Redis was unusable (fast-check keeps the thrown error as `cause`). */
export function unavailability(err: unknown): Error | undefined {
  for (let e: unknown = err, depth = 0; e !== undefined && e !== null && depth < 10; e = (e as { cause?: unknown }).cause, depth++) {
    if (isUnavailability(e)) return e as Error;
  }
  return undefined;
}
