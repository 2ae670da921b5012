import * as z from 'zod';
import type { EvictionPolicy } from '../../redis/memory.js';
import type { SimNode } from '../store/sim-node.js';
import { nodeName } from '../topology/node-name.js';
import { at, between, ms, zone } from '../settings/atoms.js';
import type { Exposure } from './exposure.js';
import { faultFamily, type Band, type BandContext, type DrawContext, type FaultWorld } from './fault-package.js';
import type { Rng } from '../kernel/rng.js';

export const fraction = z.number().gt(0).lt(1);

const memoryPressure = z
  .object({
    at,
    kind: z.literal('memory-pressure').describe('the fault: memory-pressure'),
    zone: zone.describe("the zone whose Redis (a primary-replica topology: the primary's, zone of the first primary) is pushed over its maxmemory, policy noeviction"),
    means: z
      .enum(['limit', 'tenant'])
      .describe("how: 'limit' lowers its maxmemory to `fraction` of what it holds (CONFIG SET maxmemory); 'tenant' sets maxmemory to what it holds and another tenant fills (1 - fraction) of it (a filler client)"),
    fraction: fraction.describe('what fits, as a fraction of what the node held when it struck'),
    durationMs: ms.describe('how long until the limit is raised again (or the tenant leaves)'),
  })
  .strict();
const memoryPressureSchemas = [memoryPressure] as const;

/** The node a memory fault presses: the zone's. */
export function nodeOf(world: FaultWorld, zoneName: string): SimNode {
  return world.topology.nodes.find((n) => n.zone === zoneName)!;
}

/**
 * Puts `node` over its memory limit for `durationMs`: what fits is `fraction` of what it holds now
 * (at least 1 byte); memory-growing writes are refused (noeviction) or whole keys evicted (an
 * allkeys policy) until the limit is lifted. Counts refusals and evictions into `exposure`. The limit
 * belongs to the node's keyspace: a restart that wipes it, or a resync that replaces it, lifts it (as a
 * CONFIG SET is lost when redis-server restarts).
 */
export function pressNode(
  world: FaultWorld,
  node: SimNode,
  f: { readonly fraction: number; readonly durationMs: number; readonly means?: 'limit' | 'tenant' },
  policy: EvictionPolicy,
  exposure: Exposure,
  random?: () => number,
): void {
  const keyspace = node.keyspace;
  // One limit at a time per node, as the real twin does: a second fault while one holds changes nothing.
  if (keyspace.memoryLimit !== undefined) return;
  const held = keyspace.usedMemory;
  const fits = Math.max(1, Math.floor(held * f.fraction));
  if (f.means === 'tenant') {
    keyspace.setMemoryLimit({ maxmemory: Math.max(1, held), policy, ...(random ? { random } : {}) });
    keyspace.setTenantBytes(held - fits + 1);
  } else keyspace.setMemoryLimit({ maxmemory: fits, policy, ...(random ? { random } : {}) });
  const refusedBefore = keyspace.oomRefusals;
  const evictedBefore = keyspace.evictions;
  let lifted = false;
  const lift = () => {
    if (lifted) return;
    lifted = true;
    const refused = keyspace.oomRefusals - refusedBefore;
    const evicted = keyspace.evictions - evictedBefore;
    if (refused > 0) exposure.add('push refused', refused);
    if (evicted > 0) exposure.add('evicted', evicted);
    keyspace.setMemoryLimit(undefined);
    keyspace.setTenantBytes(0);
  };
  world.kernel.after(f.durationMs, lift);
  exposure.atEnd(lift);
}

/** Lifts every memory limit (the liveness phase). */
export function liftAllLimits(world: FaultWorld): void {
  for (const node of world.topology.nodes) {
    node.keyspace.setMemoryLimit(undefined);
    node.keyspace.setTenantBytes(0);
  }
}

/**
 * What every memory fault draws: when, the zone (any on Dynomite, where every node takes writes; the
 * first primary's otherwise), what fits (20–90 % of what it holds) and for how long.
 */
export function drawPressure(rng: Rng, ctx: DrawContext): { at: number; zone: string; fraction: number; durationMs: number } {
  return {
    at: ctx.at,
    zone: ctx.config.topology.kind === 'dynomite' ? rng.pick(ctx.zones) : ctx.zones[0]!,
    fraction: between(rng, 20, 90) / 100,
    durationMs: between(rng, 200, ctx.safetyMs),
  };
}

/** A memory fault's band: on its node's lane for as long as it lasts. */
export function memoryBand(f: { readonly kind: string; readonly zone: string; readonly durationMs: number }, t: number, ctx: BandContext, label: string): Band {
  return { kind: f.kind, lane: nodeName(ctx.config.topology.kind, ctx.config.topology.zones, f.zone), from: t, to: t + f.durationMs, label };
}

/**
 * Memory pressure: a Redis whose maxmemory falls below what it holds, or that another tenant fills,
 * for a drawn while, with the `noeviction` policy: memory-growing writes are refused (an atomic push
 * whole, a legacy push part-way) while consumers' deletes and the atomic consumers' scripts still run.
 */
export const memoryPressureFamily = faultFamily<'memory-pressure', typeof memoryPressureSchemas>({
  family: 'memory-pressure',
  description: 'a Redis is pushed over its maxmemory (noeviction) for a while and then freed',
  schemas: memoryPressureSchemas,
  apply(world, f, exposure) {
    pressNode(world, nodeOf(world, f.zone), f, 'noeviction', exposure);
  },
  healAll: liftAllLimits,
  applicable: () => true,
  generate: (rng, ctx) => [{ kind: 'memory-pressure', means: rng.chance(0.5) ? 'limit' : 'tenant', ...drawPressure(rng, ctx) }],
  targets: (f) => ({ zones: [f.zone] }),
  band: (f, t, ctx) =>
    memoryBand(f, t, ctx, `Redis of ${f.zone} full (${f.means === 'limit' ? 'maxmemory lowered' : 'another tenant'}, ${Math.round(f.fraction * 100)} % fits) ${f.durationMs} ms`),
  exposureNames: ['push refused'],
  advice: {
    deliveredPromptly: 'a full Redis refuses pushes (StoreFullError) until memory is freed: size maxmemory for the backlog, alert on used_memory, and retry refused pushes with back-off; atomic consumers keep draining meanwhile.',
    atLeastOnce:
      'on a full Redis (noeviction) legacy writes a batch one message at a time, so a refused batch leaves part of itself written (a payload without its queue entry is never delivered), and its claims are refused so nothing drains: use atomic mode, whose push is refused whole and whose consumers still run.',
    unackRecovery: 'legacy claims and re-queues write ZADD first, which a full Redis refuses: use atomic mode.',
    priorityOrder: 'a push refused while Redis was full and retried later is ranked behind what was pushed meanwhile: retry refused pushes promptly, or size maxmemory for the backlog.',
  },
  bandColour: '#107c10',
  docsNote: "`means`: `limit` or `tenant`; noeviction; primary-replica: the first primary's zone",
});
