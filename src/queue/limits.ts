/**
 * How much work one script call may do, so that no call stalls Redis (and every other client of
 * it) past the stall budget: `npm run bench:stalls` measures each at these limits. A call asked
 * for more is split into several scripts of at most these sizes.
 */

/** Messages one push script writes. */
export const PUSH_SCRIPT_MESSAGES = 500;
/** Stored bytes (message JSON) one push script writes; a single message larger than this goes alone. */
export const PUSH_SCRIPT_BYTES = 1024 * 1024;
/** Messages one pop script leases. */
export const POP_SCRIPT_COUNT = 500;
/** Expired leases one reaper script re-queues (processUnacks runs several up to `reaperBatch`). */
export const REQUEUE_SCRIPT_COUNT = 1_000;
/** The largest `maxPayloadBytes` accepted: one message of this size is one script's worth of bytes. */
export const MAX_PAYLOAD_BYTES_LIMIT = PUSH_SCRIPT_BYTES;

/** Splits `items` into runs of at most `maxCount` items and (past the first item of a run) `maxBytes` bytes. */
export function chunked<T>(items: readonly T[], maxCount: number, maxBytes: number, bytes: (item: T) => number): T[][] {
  const out: T[][] = [];
  let run: T[] = [];
  let runBytes = 0;
  for (const item of items) {
    const size = bytes(item);
    if (run.length > 0 && (run.length >= maxCount || runBytes + size > maxBytes)) {
      out.push(run);
      run = [];
      runBytes = 0;
    }
    run.push(item);
    runBytes += size;
  }
  if (run.length > 0) out.push(run);
  return out;
}
