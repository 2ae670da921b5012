import * as z from 'zod';
import { Rng } from '../kernel/rng.js';
import { at, ms, zone } from '../settings/atoms.js';
import { faultFamily } from './fault-package.js';
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
const evictionSchemas = [evictionSchema] as const;

/**
 * Eviction: a Redis left at an evicting policy (a managed cache's default) is over its maxmemory for
 * a while: before each command it deletes whole keys — a queue's message hash, ready or un-ack set —
 * until it fits. Nothing is refused and nothing reports the loss; on a primary the deletions reach the
 * replicas as DELs.
 */
export const evictionFamily = faultFamily<'eviction', typeof evictionSchemas>({
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
  exposureNames: ['evicted', 'push refused'],
  advice: {
    atLeastOnce:
      "an allkeys-* policy deletes whole queue keys (the message hash, a ready or un-ack set) when Redis is full, and nothing reports it: run the queue's Redis with maxmemory-policy noeviction (IoredisStore refuses allkeys-* unless evictionCheck says otherwise).",
    unackRecovery: 'an evicted un-ack set takes its leases with it, so nothing re-queues them: use maxmemory-policy noeviction.',
    deliveredPromptly: 'an evicted message hash or ready set leaves ids that can never be delivered: use maxmemory-policy noeviction.',
    acksAreFinal: 'an evicted key can be written again by a later push or re-queue on a state that lost its history: use maxmemory-policy noeviction.',
    noDoublePop: 'an evicted lease hash or un-ack set forgets who holds a message: use maxmemory-policy noeviction.',
    priorityOrder: 'an evicted rank (META) or ready set reorders what is left: use maxmemory-policy noeviction.',
  },
  bandColour: '#e3008c',
  docsNote: "`policy`: `allkeys-lru` / `-lfu` / `-random`; drawn only when named (a set-up `IoredisStore` refuses): never by a swarm row or `explore` by default",
});
