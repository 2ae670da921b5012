import { randomUUID } from 'node:crypto';
import * as z from 'zod';
import type { Store } from '../store/store.js';
import { InvalidArgumentError } from './errors.js';
import { DEFAULT_MAX_PAYLOAD_BYTES } from './message.js';
import { MAX_PAYLOAD_BYTES_LIMIT } from './limits.js';
import type { ShardSupplier, ShardingStrategy } from './sharding.js';
import type { Clock, Timers } from './time.js';

/** Names end up inside key names: no dots (the key separator), no braces (hash tags), no spaces. */
const NAME = /^[A-Za-z0-9_\-:]+$/;
const name = (what: string) =>
  z.string().min(1, `${what} must not be empty`).max(128).regex(NAME, `${what} may only contain letters, digits, _ - :`);

/** Duck-typed collaborators: anything (object or function) carrying the method the queue calls. */
const hasMethod =
  <T>(method: string) =>
  (v: unknown): v is T =>
    v !== null && v !== undefined && typeof (v as Record<string, unknown>)[method] === 'function';
const isStore = hasMethod<Store>('runScript');
const isClock = hasMethod<Clock>('now');
const isTimers = hasMethod<Timers>('setTimeout');
const isStrategy = hasMethod<ShardingStrategy>('nextShard');

const ms = z.number().int().nonnegative().max(2 ** 40);

/** Expired leases the atomic reaper re-queues per call by default (see `reaperBatch`). */
export const DEFAULT_REAPER_BATCH = 1_000;

/** The default settle time on Dynomite (see `settleMs`). */
export const DYNOMITE_SETTLE_MS = 1_000;

const schema = z
  .object({
    name: name('queue name'),
    prefix: name('prefix').default('dynoq'),
    mode: z.enum(['atomic', 'legacy']).default('atomic'),
    quorum: z.custom<Store>(isStore, 'quorum must be a Store'),
    nonQuorum: z.custom<Store>(isStore, 'nonQuorum must be a Store').optional(),
    shards: z
      .object({
        allShards: z.array(name('shard name')).min(1, 'at least one shard'),
        currentShard: name('shard name'),
      })
      .refine((s) => s.allShards.includes(s.currentShard), 'currentShard must be one of allShards')
      .refine((s) => new Set(s.allShards).size === s.allShards.length, 'shard names must be unique')
      .default({ allShards: ['a'], currentShard: 'a' }),
    sharding: z.union([z.enum(['round-robin', 'hash']), z.custom<ShardingStrategy>(isStrategy)]).default('round-robin'),
    /** Lease length: how long a popped message stays un-acked before the reaper may re-queue it (≥ 1 ms, as the simulator's unackTimeoutMs). */
    unackTimeout: ms.min(1, 'must be at least 1 ms: a lease of 0 ms would end as the pop returns').default(60_000),
    /** Reaper period; 0 turns the background reaper off (call processUnacks yourself). */
    unackInterval: ms.default(1_000),
    /**
     * Atomic only: expired leases one processUnacks call re-queues, oldest lease deadline first (in
     * scripts of at most REQUEUE_SCRIPT_COUNT each), so a backlog larger than this drains over
     * successive reaper passes without starving its oldest. Legacy keeps Dyno's fixed PROCESS_UNACKS_BATCH.
     */
    reaperBatch: z.number().int().positive().max(100_000).default(DEFAULT_REAPER_BATCH),
    /**
     * Atomic only: the background reaper also promotes every due message to READY each period, in
     * bounded steps, so that priority orders a backlog that fell due at once within one period
     * even when nobody pops (off: only pops and peeks promote, PROMOTE_BATCH per call).
     */
    promoteInReaper: z.boolean().default(false),
    /** Legacy only: use atomicProcessUnacks in the reaper (Dyno's singleRingTopology). */
    singleRingTopology: z.boolean().default(false),
    /** Long-poll step while pop waits for messages. */
    pollInterval: ms.min(1).default(10),
    /** Largest payload (UTF-8 bytes) a push accepts; at most MAX_PAYLOAD_BYTES_LIMIT, so one message stays one bounded script. */
    maxPayloadBytes: z
      .number()
      .int()
      .positive()
      .max(MAX_PAYLOAD_BYTES_LIMIT, `must be at most ${MAX_PAYLOAD_BYTES_LIMIT} bytes: one larger message would stall Redis past the budget of one script`)
      .default(DEFAULT_MAX_PAYLOAD_BYTES),
    /**
     * Atomic only: an id becomes poppable only this long after it is due. On Dynomite every replica
     * re-executes each pop, and a push made through another rack's node reaches the replicas at
     * different times: a pop that ran before the push on one replica and after it on another would
     * lease different messages there, and the replicas would differ for good. Waiting until the push
     * reached every replica keeps them equal as long as replication is faster than this. Default:
     * DYNOMITE_SETTLE_MS (1 s) on a Dynomite store of more than one rack (or of unknown size), 0
     * elsewhere.
     */
    settleMs: ms.optional(),
    /** Atomic only: deadlines and due times from the Redis server's clock. */
    serverTime: z.boolean().default(false),
    /** Atomic only: WAIT for this many replicas after push and ack. */
    durable: z.object({ replicas: z.number().int().positive(), timeoutMs: ms.min(1) }).optional(),
    /** Wrap the queue name in a hash tag (needed on Redis Cluster). */
    hashTag: z.boolean().default(false),
    clock: z.custom<Clock>(isClock, 'clock must have now()'),
    /**
     * Atomic only: the source of lease tokens, which must never repeat across clients, restarts or
     * failovers (a token is the only thing that tells two leases of one message apart). Default:
     * 128 random bits (crypto.randomUUID). The simulator injects a seeded one.
     */
    randomId: z.custom<() => string>((v) => typeof v === 'function', 'randomId must be a function').default(() => randomUUID),
    /**
     * Atomic only: ack, ackMany, release, setUnackTimeout and remove of a leased message need the
     * lease's token; a call without one is refused (InvalidArgumentError, or false for remove of a
     * leased message) instead of acting on whatever lease is current. Default false: a call without
     * a token acts on the current lease, whoever holds it (Dyno-queues' behaviour).
     */
    requireLeaseToken: z.boolean().default(false),
    timers: z.custom<Timers>(isTimers, 'timers must have setTimeout/clearTimeout'),
    /** Called with errors the background reaper swallowed (it keeps running). */
    onReaperError: z.custom<(err: unknown) => void>((v) => typeof v === 'function').optional(),
  })
  .strict()
  .refine((o) => o.mode === 'atomic' || (!o.serverTime && !o.durable && !o.promoteInReaper && !o.requireLeaseToken), {
    message: 'serverTime, durable, promoteInReaper and requireLeaseToken are atomic-mode options',
    path: ['mode'],
  });

export type QueueOptionsInput = z.input<typeof schema>;
export type QueueOptions = z.output<typeof schema> & { readonly shards: ShardSupplier };

export function parseQueueOptions(input: QueueOptionsInput): QueueOptions {
  const parsed = schema.safeParse(input);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const path = issue.path.join('.') || 'options';
    throw new InvalidArgumentError(`option ${path}`, issue.message);
  }
  return parsed.data;
}
