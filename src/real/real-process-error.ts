/** What went wrong with a real store process, for a caller that branches on it. */
type RealProcessErrorCode =
  /** No redis-server on PATH. */
  | 'redis-server-missing'
  /** No Dynomite build (scripts/build-dynomite.sh) and no DYNOQ_DYNOMITE_BIN / DYNOMITE_BIN. */
  | 'dynomite-missing'
  /** A process exited or never answered while starting. */
  | 'start-failed'
  /** A condition (a replica in sync, a peer reached) did not hold in time. */
  | 'timeout'
  /** A zone the cluster does not have. */
  | 'unknown-zone'
  /** A fault this topology has no process for (a separate backend on primary-replica). */
  | 'not-on-topology';

/** A real store process could not be found, started, or faulted as asked. */
export class RealProcessError extends Error {
  constructor(
    readonly code: RealProcessErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'RealProcessError';
  }
}
