import * as z from 'zod';
import { Rng } from '../kernel/rng.js';
import { at, ms, zone } from '../settings/atoms.js';
import type { FaultPackage } from './fault-package.js';
import { drawPressure, fraction, liftAllLimits, memoryBand, nodeOf, pressNode } from './memory-pressure.js';

const evictionSchema = z
  .object({
    at,
    kind: z.literal('eviction').describe('the fault: eviction'),
    zone: zone.describe("the zone whose Redis (a primary-replica topology: the primary's) runs an evicting policy while over its maxmemory"),
    policy: z.enum(['allkeys-lru', 'allkeys-lfu', 'allkeys-random']).describe('the maxmemory-policy: which whole keys go first'),
    fraction: fraction.describe('what fits, as a fraction of what the node held when it struck'),
    durationMs: ms.describe('how long until the limit is raised again'),
    seed: z.number().int().nonnegative().describe('draws allkeys-random victims (the same seed evicts the same keys)'),
  })
  .strict();
type Eviction = z.output<typeof evictionSchema>;
export const evictionSchemas = [evictionSchema] as const;

/**
 * Eviction: a Redis left at an evicting policy (a managed cache's default) is over its maxmemory for
 * a while: before each command it deletes whole keys — a queue's message hash, ready or un-ack set —
 * until it fits. Nothing is refused and nothing reports the loss; on a primary the deletions reach the
 * replicas as DELs.
 */
export const evictionFamily: FaultPackage<Eviction> = {
  family: 'eviction',
  description: 'a Redis with an allkeys eviction policy is over its maxmemory for a while',
  schemas: evictionSchemas,
  // A policy IoredisStore refuses (EvictionPolicyError): drawn only when named.
  drawnByDefault: false,
  apply(world, f, exposure) {
    const rng = new Rng(String(f.seed), 'eviction');
    pressNode(world, nodeOf(world, f.zone), f, f.policy, exposure, () => rng.float());
  },
  healAll: liftAllLimits,
  applicable: () => true,
  generate: (rng, ctx) => [
    { kind: 'eviction', policy: rng.pick(['allkeys-lru', 'allkeys-lfu', 'allkeys-random'] as const), seed: rng.int(0, 1_000_000), ...drawPressure(rng, ctx) },
  ],
  targets: (f) => ({ zones: [f.zone] }),
  band: (f, t, ctx) => memoryBand(f, t, ctx, `Redis of ${f.zone} evicting (${f.policy}, ${Math.round(f.fraction * 100)} % fits) ${f.durationMs} ms`),
};
