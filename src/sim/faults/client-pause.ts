import * as z from 'zod';
import { at, between, ms, target } from '../settings/atoms.js';
import { faultFamily } from './fault-package.js';

const pauseClientSchema = z
  .object({ at, kind: z.literal('pause-client').describe('the fault: pause-client'), actor: target.describe('the client that stalls (a GC pause)'), durationMs: ms.describe('how long it hears nothing and does nothing') })
  .strict();
const clientPauseSchemas = [pauseClientSchema] as const;

/** A client stalls (GC-like): its timers and replies wait until the pause ends. */
export const clientPause = faultFamily<'client-pause', typeof clientPauseSchemas>({
  family: 'client-pause',
  description: 'a client stalls, often for longer than its leases',
  schemas: clientPauseSchemas,
  apply(world, f, exposure) {
    const actor = world.actor(f.actor);
    if (!actor || actor.crashed) return;
    const start = world.kernel.now;
    const until = start + f.durationMs;
    const held = world.heldBy(f.actor);
    exposure.add('leases held', held.length);
    exposure.add('leases outlived by the pause', held.filter((h) => h.leaseUntil < until).length);
    exposure.add('calls in flight', world.inFlight(f.actor));
    exposure.touch(held.map((h) => h.id));
    // A pop in flight when the pause began hands its messages over only after it: their leases ran
    // while nobody could work on them, so the pause touched them too.
    const stop = world.observations.listen('delivered', (e) => {
      if (e.actor !== f.actor || e.invokedAt > start) return;
      exposure.add('deliveries held by the pause');
      exposure.touch([e.id]);
    });
    exposure.atEnd(stop);
    actor.pause(until);
  },
  healAll(world) {
    for (const a of world.actors()) a.timers.pausedUntil = 0;
  },
  applicable: () => true,
  generate(rng, ctx) {
    if (ctx.consumers.length === 0) return [];
    const lease = ctx.config.queue.unackTimeoutMs;
    return [{ at: ctx.at, kind: 'pause-client', actor: rng.pick(ctx.consumers), durationMs: between(rng, 0.5 * lease, 3 * lease) }];
  },
  targets: (f) => ({ actors: [f.actor] }),
  band: (f, t) => ({ kind: f.kind, lane: f.actor, from: t, to: t + f.durationMs, label: `pause ${f.durationMs} ms` }),
  exposureNames: ['leases outlived by the pause', 'deliveries held by the pause', 'leases held', 'calls in flight'],
  advice: {
    deliveredPromptly: 'a pop whose client is paused holds its shard\'s due messages back until it resumes (another consumer of the shard takes them only if it is free): run more than one consumer per shard and keep pauses short.',
    noDoublePop: 'a pause longer than the lease lets the reaper hand the message to someone else: make the lease longer than the longest pause, or extend it while working.',
  },
  bandColour: '#0078d4',
});
