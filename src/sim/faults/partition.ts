import * as z from 'zod';
import { at, between, ms, zone } from '../settings/atoms.js';
import { faultFamily } from './fault-package.js';

const partitionSchema = z
  .object({
    at,
    kind: z.literal('partition').describe('the fault: partition'),
    from: zone.describe('one side: messages from this zone…'),
    to: zone.describe('…to this zone wait (TCP retransmits) and arrive at the heal; the calls waiting on them time out meanwhile'),
    oneWay: z.boolean().default(false).describe('only from → to (default: both ways)'),
    durationMs: ms.describe('how long it lasts; healing it ends only this partition'),
  })
  .strict();
const partitionSchemas = [partitionSchema] as const;

/** Symmetric and one-way partitions between zones; each heals only its own block. */
export const partition = faultFamily<'partition', typeof partitionSchemas>({
  family: 'partition',
  description: 'a symmetric or one-way network partition between two zones',
  schemas: partitionSchemas,
  apply(world, f, exposure) {
    const { network, observations } = world;
    const pairs: [string, string][] = f.oneWay ? [[f.from, f.to]] : [[f.from, f.to], [f.to, f.from]];
    for (const [a, b] of pairs) network.block(a, b);
    const across = (e: { from: string; to: string }) => pairs.some(([a, b]) => a === e.from && b === e.to);
    const stops = [
      observations.listen('held-by-partition', (e) => across(e) && exposure.add('messages held until the heal')),
      observations.listen('dropped', (e) => across(e) && exposure.add('messages dropped')),
    ];
    const stop = () => stops.forEach((s) => s());
    world.kernel.after(f.durationMs, () => {
      stop();
      for (const [a, b] of pairs) network.unblock(a, b);
      world.topology.resume();
      world.trace.record({ t: world.kernel.now, actor: 'nemesis', op: 'heal-partition', args: { from: f.from, to: f.to } });
    });
    exposure.atEnd(stop);
  },
  healAll(world) {
    world.network.healAll();
    world.topology.resume();
  },
  applicable: (c) => c.topology.zones.length > 1,
  generate(rng, ctx) {
    const from = rng.pick(ctx.zones);
    const to = rng.pick(ctx.zones.filter((z) => z !== from));
    return [{ at: ctx.at, kind: 'partition', from, to, oneWay: rng.chance(0.5), durationMs: between(rng, 100, ctx.safetyMs / 2) }];
  },
  targets: (f) => ({ zones: [f.from, f.to] }),
  band: (f, t) => ({ kind: f.kind, lane: null, from: t, to: t + f.durationMs, label: `partition ${f.from}${f.oneWay ? '→' : '↔'}${f.to}` }),
  exposureNames: ['messages dropped', 'messages held until the heal'],
  advice: {
    deliveredPromptly: 'consumers cut off from their shard\'s node cannot pop until the partition heals.',
    atLeastOnce: 'writes across a partition arrive only at the heal, after writes made since on the other side, and replicas that re-execute them on a state that moved on diverge: use a consistency level that needs a majority, and time out and retry unknown pushes.',
    noDoublePop: 'replicas that missed a lease hand the message out again: pop through the quorum connection only.',
    acksAreFinal: 'an ack that reached one side only is undone by the other: ack through the quorum connection.',
  },
  bandColour: '#8764b8',
});
