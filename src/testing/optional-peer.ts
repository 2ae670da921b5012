import { DynoqError } from '../queue/errors.js';

/**
 * An optional peer dependency that a function needs is not installed (fast-check, for the checks
 * that generate their inputs). Nothing ran; the message says what to install.
 */
export class MissingPeerDependencyError extends DynoqError {
  readonly code = 'MISSING_PEER_DEPENDENCY';
  constructor(
    readonly what: string,
    readonly dependency: string,
  ) {
    super(`${what} needs ${dependency}: npm install --save-dev ${dependency}`);
    this.name = 'MissingPeerDependencyError';
  }
}

/** Whether `err` (or an error it wraps as its cause: a bundler or test runner may wrap it) says `dependency` is not installed. */
function isMissing(err: unknown, dependency: string): boolean {
  for (let e = err, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    if ((e as { code?: string }).code === 'ERR_MODULE_NOT_FOUND' && e.message.includes(`'${dependency}'`)) return true;
  }
  return false;
}

/** Imports a module that needs fast-check; its absence is a MissingPeerDependencyError naming `what`. */
export async function needingFastCheck<T>(what: string, importer: () => Promise<T>): Promise<T> {
  try {
    return await importer();
  } catch (err) {
    if (isMissing(err, 'fast-check')) throw new MissingPeerDependencyError(what, 'fast-check');
    throw err;
  }
}
