import * as z from 'zod';

/**
 * The largest sizes a configuration may ask for (docs/SCENARIOS.md, "Limits"): a simulation holds
 * every actor, message and scheduled event in memory, so a size past these is refused, naming the
 * field, instead of running out of memory.
 */
export const SCENARIO_LIMITS = {
  /** Producers, and consumers, each. */
  actors: 1_000,
  messages: 10_000_000,
  /** Messages per push or per pop call. */
  batch: 10_000,
  /** Messages per second per producer. */
  rate: 1_000_000,
  /** Any duration or time in ms: one day. */
  durationMs: 86_400_000,
  faults: 1_000,
} as const;

/** Schema pieces every fault family uses. */
export const ms = z.number().int().nonnegative().max(SCENARIO_LIMITS.durationMs);
/** A duration that may have a fraction of a ms. */
export const fractionalMs = z.number().nonnegative().max(SCENARIO_LIMITS.durationMs);
export const zone = z.string().regex(/^[a-z0-9-]+$/, 'zone names are lower-case letters, digits and -');
/** An actor (producer-0, consumer-1, consumer-1-restarted) or, for clocks, a node (node-a, primary-a, replica-b). */
export const target = z.string().min(1);
export const at = ms.describe('when the fault strikes, in ms after the start of the run');

/** An integer drawn uniformly in [lo, hi] after rounding both. */
export function between(rng: { int(lo: number, hi: number): number }, lo: number, hi: number): number {
  const a = Math.round(lo);
  return rng.int(a, Math.max(a, Math.round(hi)));
}
