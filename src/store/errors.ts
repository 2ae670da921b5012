import { DynoqError } from '../errors/dynoq-errors.js';

/** A store that cannot do what was asked (for example WAIT on ioredis-mock). */
export class UnsupportedStoreFeatureError extends DynoqError {
  readonly code = 'UNSUPPORTED_STORE_FEATURE';
  constructor(
    readonly feature: string,
    readonly store: string,
  ) {
    super(`${store} does not support ${feature}; use a real Redis server for it`);
    this.name = 'UnsupportedStoreFeatureError';
  }
}

/**
 * An ioredis client whose settings can break the queue's promises: one that re-sends an in-flight
 * script after a reconnect (the script may run twice: a re-run pop leases messages nobody receives,
 * a re-run ack answers 0) or that has no command timeout (with re-sending off, a call on a dead
 * connection can wait forever). Build the client with `connect()`, or opt out with
 * `new IoredisStore(client, { clientCheck: 'warn' | 'off' })`.
 */
export class UnsafeClientError extends DynoqError {
  readonly code = 'UNSAFE_CLIENT';
  constructor(readonly problems: readonly string[]) {
    super(
      `this ioredis client can break the queue's promises:\n${problems.map((p) => `  - ${p}`).join('\n')}\n` +
        "build it with connect() from 'dynoq', or pass { clientCheck: 'warn' } or { clientCheck: 'off' } to IoredisStore to accept the risk",
    );
    this.name = 'UnsafeClientError';
  }
}

/**
 * The server refused the database the client was told to use (SELECT failed, e.g. an index past
 * its `databases` setting). Nothing was sent: ioredis would have used database 0 instead.
 */
export class DatabaseRefusedError extends DynoqError {
  readonly code = 'DATABASE_REFUSED';
  constructor(
    readonly db: number,
    readonly reply: string,
  ) {
    super(`Redis refused database ${db} (${reply}); no command was sent, as it would have gone to database 0`);
    this.name = 'DatabaseRefusedError';
  }
}

/**
 * Redis is past its `maxmemory` (policy `noeviction`) and refused a write that could grow memory:
 * its `OOM command not allowed …` reply. An atomic push refused this way wrote nothing (its script's
 * first write is the one refused); pops, acks and removes still run, so consumers drain the queue.
 * Legacy mode writes message by message and may have written part of a batch (docs/API.md).
 */
export class StoreFullError extends DynoqError {
  readonly code = 'STORE_FULL';
  constructor(readonly reply: string) {
    super(`Redis is full and refused the write (${reply})`);
    this.name = 'StoreFullError';
  }
}

/** Redis's out-of-memory refusal (plain or from inside a script) as a StoreFullError; anything else as it is. */
export function typedStoreError(err: unknown): unknown {
  if (err instanceof Error && err.message.startsWith('OOM ')) return new StoreFullError(err.message);
  return err;
}

/**
 * A Redis whose `maxmemory-policy` may evict the queue's keys: under memory pressure an `allkeys-*`
 * policy deletes whole keys — a queue's message hash or ready set — and messages vanish with no error
 * anywhere. Refused by `IoredisStore` before its first command; opt out with `{ evictionCheck: 'warn' }`
 * or `{ evictionCheck: 'off' }`.
 */
export class EvictionPolicyError extends DynoqError {
  readonly code = 'EVICTION_POLICY';
  constructor(
    readonly policy: string,
    readonly server: string,
  ) {
    super(
      `Redis ${server} runs maxmemory-policy ${policy}: when full it evicts whole keys, the queue's included, and messages are lost silently; ` +
        "set maxmemory-policy noeviction (pushes are then refused with StoreFullError), or pass { evictionCheck: 'warn' } or { evictionCheck: 'off' } to IoredisStore to accept the risk",
    );
    this.name = 'EvictionPolicyError';
  }
}
