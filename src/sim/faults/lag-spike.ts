import * as z from 'zod';
import { at, between, ms } from '../settings/atoms.js';
import { faultFamily } from './fault-package.js';

const lagSpikeSchema = z
  .object({
    at,
    kind: z.literal('lag-spike').describe('the fault: lag-spike'),
    extraMs: ms.describe('replication lag added to every replicated write while it lasts'),
    durationMs: ms.describe('how long it lasts'),
  })
  .strict();
const lagSpikeSchemas = [lagSpikeSchema] as const;

/** Replication slows down for a while; overlapping spikes add up and end one at a time. */
export const lagSpike = faultFamily<'lag-spike', typeof lagSpikeSchemas>({
  family: 'lag-spike',
  description: 'replication lag rises by a fixed amount for a while',
  schemas: lagSpikeSchemas,
  apply(world, f, exposure) {
    const { network } = world;
    network.extraLagMs += f.extraMs;
    const stop = world.observations.listen('replicated', () => exposure.add('writes replicated late'));
    world.kernel.after(f.durationMs, () => {
      stop();
      network.extraLagMs = Math.max(0, network.extraLagMs - f.extraMs);
    });
    exposure.atEnd(stop);
  },
  healAll(world) {
    world.network.extraLagMs = 0;
  },
  applicable: (c) => c.topology.zones.length > 1,
  generate: (rng, ctx) => [{ at: ctx.at, kind: 'lag-spike', extraMs: between(rng, 50, 2_000), durationMs: between(rng, 100, ctx.safetyMs / 2) }],
  targets: () => ({}),
  band: (f, t) => ({ kind: f.kind, lane: null, from: t, to: t + f.durationMs, label: `lag spike +${f.extraMs} ms` }),
  exposureNames: ['writes replicated late'],
  advice: {
    deliveredPromptly: 'a pop reads a replica the push has not reached yet: the delay is the replication lag; for atomic on Dynomite it is bounded by settleMs.',
    priorityOrder: 'a replica that has not received a more urgent push yet serves a less urgent one first.',
    atLeastOnce: 'atomic on Dynomite assumes replication is faster than settleMs: raise settleMs above the worst replication lag.',
    unackRecovery: 'atomic on Dynomite assumes replication is faster than settleMs: raise settleMs above the worst replication lag.',
    noDoublePop: 'replicas that lag behind a lease (or, for atomic on Dynomite, behind settleMs) hand the message out again: pop with quorum and raise settleMs above the worst replication lag.',
  },
  bandColour: '#ca5010',
});
