import * as z from 'zod';

import { CONSUMER_LOOPS, PROFILE_NAMES, type ConsumerLoop, type ProfileName } from './workload-names.js';
import { SCENARIO_LIMITS } from './atoms.js';

export { CONSUMER_LOOPS, PROFILE_NAMES, type ConsumerLoop, type ProfileName };

const probability = z.number().min(0).max(1);

/** What a holder may do with a message besides working on it and acking it (chance per delivery). */
const holdingSchema = z
  .object({
    extend: probability.describe('chance a holder works slowly: it extends its lease (setUnackTimeout) to twice the lease, then works past the original lease'),
    release: probability.describe('chance a holder hands the message back (release) instead of acking it'),
    reschedule: probability.describe('chance a holder tries to reschedule (setTimeout) the message it holds before acking it; the queue refuses: it acts only on queued messages'),
  })
  .strict();

/** What the operator client does during the safety phase: one operation per tick, drawn by weight. */
const operatorSchema = z
  .object({
    intervalMs: z.number().min(1).max(SCENARIO_LIMITS.durationMs).describe('ms between two operations of the operator (at least 1)'),
    reschedule: z.number().nonnegative().describe('weight: reschedule (setTimeout) a pushed message to a new delay'),
    remove: z.number().nonnegative().describe('weight: remove (or atomicRemove) a pushed message'),
    ensure: z.number().nonnegative().describe('weight: ensure a message, new or already pushed'),
    popById: z.number().nonnegative().describe('weight: popWithMsgId of a pushed message, then ack it'),
    popByPredicate: z.number().nonnegative().describe("weight: popMsgWithPredicate matching one message's payload, then ack it"),
    read: z.number().nonnegative().describe('weight: one read-only call (get, localGet, peek, size, shardSizes, getAllMessages, containsPredicate, getMsgWithPredicate, getUnackTime, findStaleMessages) or a manual processUnacks'),
  })
  .strict();

/** The workload fields a profile fills in when a configuration leaves them out. */
export interface ProfileSettings {
  readonly maxDelayMs: number;
  /** Share of messages that get a delay (the rest are due at once). */
  readonly delayedFraction: number;
  readonly maxPriority: number;
  readonly consumerLoops: readonly ConsumerLoop[];
  readonly holding: z.output<typeof holdingSchema>;
  /** null: no operator client. */
  readonly operator: z.output<typeof operatorSchema> | null;
  /** Two racer clients making the races users hit (src/sim/workloads/race.ts) every `intervalMs`, or null for none. */
  readonly races: { readonly intervalMs: number } | null;
}

const NO_HOLDING = { extend: 0, release: 0, reschedule: 0 } as const;

/**
 * The named workloads. `basic` is what the table measured first: pushes due at once, pop + ack.
 * `delays` delays every message (up to 3 s, so some fall due during the faults). `full` uses every
 * public operation: delays (some longer than the table's safety phase), priorities, every consumer
 * loop, lease extensions, releases, reschedules of queued and held messages, removes, ensures, pops
 * by id and by predicate, and the read-only calls.
 */
export const PROFILES: Readonly<Record<ProfileName, ProfileSettings & { readonly description: string }>> = {
  basic: {
    description: 'push (delay 0, priority 0 unless set), pop + ack',
    maxDelayMs: 0,
    delayedFraction: 1,
    maxPriority: 0,
    consumerLoops: ['pop-ack'],
    holding: NO_HOLDING,
    operator: null,
    races: null,
  },
  delays: {
    description: 'every message delayed by up to 3 s, pop + ack',
    maxDelayMs: 3_000,
    delayedFraction: 1,
    maxPriority: 0,
    consumerLoops: ['pop-ack'],
    holding: NO_HOLDING,
    operator: null,
    races: null,
  },
  full: {
    description:
      'every public operation: 40 % of messages delayed up to 6 s, priorities 0–9, every consumer loop, lease extensions, releases, reschedules, removes, ensures, pops by id and predicate, reads, and racers (a long-poll and a consume() aborted after they leased, one id ensured from two zones at once, a reschedule and a setUnackTimeout racing a pop of the same id, a connection reset in the middle of a consume() batch)',
    maxDelayMs: 6_000,
    delayedFraction: 0.4,
    maxPriority: 9,
    consumerLoops: CONSUMER_LOOPS,
    holding: { extend: 0.08, release: 0.06, reschedule: 0.04 },
    operator: { intervalMs: 100, reschedule: 3, remove: 1, ensure: 2, popById: 1, popByPredicate: 1, read: 5 },
    races: { intervalMs: 150 },
  },
};

/** The workload fields that name what the clients do (the scenario schema's part of them). */
export const workloadProfileFields = {
  profile: z.enum(PROFILE_NAMES).default('basic').describe(`named workload: ${PROFILE_NAMES.map((p) => `${p} (${PROFILES[p].description})`).join('; ')} (default basic); the fields below override it`),
  maxDelayMs: z.number().int().nonnegative().max(SCENARIO_LIMITS.durationMs).optional().describe("a delayed message is delayed by a random 0…maxDelayMs ms (default: the profile's)"),
  delayedFraction: probability.optional().describe("share of messages that get a delay (default: the profile's)"),
  maxPriority: z.number().int().min(0).max(99).optional().describe("each message gets a random priority 0…maxPriority (default: the profile's)"),
  consumerLoops: z.array(z.enum(CONSUMER_LOOPS)).min(1).optional().describe("consumer i runs loop i mod n: pop-ack, ack-and-pop, ack-many-and-pop, consume (entered once, as the README writes it), bulk-pop (default: the profile's)"),
  holding: holdingSchema.optional().describe("what holders do besides acking (default: the profile's)"),
  operator: operatorSchema.nullable().optional().describe("an operator client's side operations in the safety phase, or null for none (default: the profile's)"),
};

interface ProfileFieldsOut {
  readonly profile: ProfileName;
  readonly maxDelayMs?: number | undefined;
  readonly delayedFraction?: number | undefined;
  readonly maxPriority?: number | undefined;
  readonly consumerLoops?: readonly ConsumerLoop[] | undefined;
  readonly holding?: ProfileSettings['holding'] | undefined;
  readonly operator?: ProfileSettings['operator'] | undefined;
}

/** The profile's settings with the configuration's own fields over them. */
export function resolveProfile(w: ProfileFieldsOut): ProfileSettings {
  const p = PROFILES[w.profile];
  return {
    maxDelayMs: w.maxDelayMs ?? p.maxDelayMs,
    delayedFraction: w.delayedFraction ?? p.delayedFraction,
    maxPriority: w.maxPriority ?? p.maxPriority,
    consumerLoops: w.consumerLoops ?? p.consumerLoops,
    holding: w.holding ?? p.holding,
    operator: w.operator === undefined ? p.operator : w.operator,
    races: p.races,
  };
}
