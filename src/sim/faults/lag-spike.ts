import * as z from 'zod';
import { at, between, ms } from '../settings/atoms.js';
import type { FaultPackage } from './fault-package.js';

const lagSpikeSchema = z
  .object({
    at,
    kind: z.literal('lag-spike').describe('the fault: lag-spike'),
    extraMs: ms.describe('replication lag added to every replicated write while it lasts'),
    durationMs: ms.describe('how long it lasts'),
  })
  .strict();
type LagSpike = z.output<typeof lagSpikeSchema>;
export const lagSpikeSchemas = [lagSpikeSchema] as const;

/** Replication slows down for a while; overlapping spikes add up and end one at a time. */
export const lagSpike: FaultPackage<LagSpike> = {
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
};
