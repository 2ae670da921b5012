import * as z from 'zod';
import { at, target } from '../settings/atoms.js';
import { faultFamily } from './fault-package.js';

const crashClientSchema = z.object({ at, kind: z.literal('crash-client').describe('the fault: crash-client'), actor: target.describe('the client process that dies (its leases stay in the store)') }).strict();
const clientCrashSchemas = [crashClientSchema] as const;

/** A consumer dies holding leases; the liveness phase starts a replacement. */
export const clientCrash = faultFamily<'client-crash', typeof clientCrashSchemas>({
  family: 'client-crash',
  description: 'a consumer process dies, holding whatever it had leased',
  schemas: clientCrashSchemas,
  apply(world, f, exposure) {
    const actor = world.actor(f.actor);
    if (!actor || actor.crashed) return;
    const held = world.heldBy(f.actor);
    exposure.add('leases held', held.length);
    exposure.touch(held.map((h) => h.id));
    exposure.add('calls in flight', world.inFlight(f.actor));
    actor.crash();
  },
  healAll: () => undefined,
  applicable: () => true,
  generate(rng, ctx) {
    if (ctx.consumers.length === 0) return [];
    const actor = rng.pick(ctx.consumers);
    ctx.crashed(actor);
    return [{ at: ctx.at, kind: 'crash-client', actor }];
  },
  targets: (f) => ({ actors: [f.actor] }),
  band: (f, t, ctx) => ({ kind: f.kind, lane: f.actor, from: t, to: ctx.livenessStart, label: 'client crash' }),
  exposureNames: ['leases held', 'calls in flight'],
  bandColour: '#d13438',
});
