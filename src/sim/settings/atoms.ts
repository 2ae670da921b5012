import * as z from 'zod';

/** Schema pieces every fault family uses. */
export const ms = z.number().int().nonnegative();
export const zone = z.string().regex(/^[a-z0-9-]+$/, 'zone names are lower-case letters, digits and -');
/** An actor (producer-0, consumer-1, consumer-1-restarted) or, for clocks, a node (node-a, primary-a, replica-b). */
export const target = z.string().min(1);
export const at = ms.describe('when the fault strikes, in ms after the start of the run');

/** An integer drawn uniformly in [lo, hi] after rounding both. */
export function between(rng: { int(lo: number, hi: number): number }, lo: number, hi: number): number {
  const a = Math.round(lo);
  return rng.int(a, Math.max(a, Math.round(hi)));
}
