import * as z from 'zod';
import { at, target, zone } from '../settings/atoms.js';
import { faultFamily } from './fault-package.js';

const clientFailoverSchema = z
  .object({ at, kind: z.literal('client-failover').describe('the fault: client-failover'), actor: target.describe('the client whose connections move'), toZone: zone.describe("the zone whose node it uses from now on") })
  .strict();
const clientFailoverSchemas = [clientFailoverSchema] as const;

/**
 * A client's connections fail over to another zone's node (Dyno's client does this when refused, and
 * connect's opt-in `dynomite.failover`): only with `network.clientFailover`, the shipped default never moves.
 */
export const clientFailover = faultFamily<'client-failover', typeof clientFailoverSchemas>({
  family: 'client-failover',
  description: "a client's connections move to another zone's node",
  schemas: clientFailoverSchemas,
  apply(world, f, exposure) {
    const actor = world.actor(f.actor);
    if (!actor || actor.crashed) return;
    for (const c of actor.connections) c.nodeZone = f.toZone;
    const stop = world.observations.listen('remote', (e) => e.actor === f.actor && e.nodeZone === f.toZone && exposure.add('requests to the other zone'));
    exposure.atEnd(stop);
  },
  healAll(world) {
    for (const a of world.actors()) for (const c of a.connections) c.nodeZone = a.zone;
  },
  applicable: (c) => c.topology.zones.length > 1 && c.network.clientFailover,
  generate(rng, ctx) {
    if (ctx.consumers.length === 0) return [];
    const actor = rng.pick(ctx.consumers);
    const home = ctx.zones[Number(/(\d+)$/.exec(actor)?.[1] ?? 0) % ctx.zones.length];
    return [{ at: ctx.at, kind: 'client-failover', actor, toZone: rng.pick(ctx.zones.filter((z) => z !== home)) }];
  },
  targets: (f) => ({ actors: [f.actor], zones: [f.toZone] }),
  band: (f, t, ctx) => ({ kind: f.kind, lane: f.actor, from: t, to: t + ctx.instant, label: `fails over to ${f.toZone}` }),
  exposureNames: ['requests to the other zone'],
  advice: {
    noDoublePop: 'a client that fails over to another replica sees its state, not its own zone\'s: leases and acks must be written with quorum.',
    acksAreFinal: 'after a client fails over, the replica it now uses may not have its ack: ack with quorum, or pin clients to their zone.',
  },
  bandColour: '#038387',
  docsNote: "drawn only with `network.clientFailover: true` and more than one zone",
});
