import * as z from 'zod';
import { at, between, ms, zone } from '../settings/atoms.js';
import { faultFamily } from './fault-package.js';
import { superviseCrash, supervisedCrashBand, SUPERVISED_CRASH_EXPOSURE } from './supervised-crash.js';

const powerLoss = z
  .object({
    at,
    kind: z.literal('power-loss').describe('the fault: power-loss'),
    zone: zone.describe("the zone whose node's machine loses power: only what its disk had fsynced survives (topology.persistence)"),
    durationMs: ms.describe('ms until the machine and its server are back (before or after a failover)'),
  })
  .strict();
export const powerLossSchemas = [powerLoss] as const;

/**
 * A node's machine loses power (or its kernel panics): unlike a killed process, what the server had
 * written to its file but not fsynced is gone: with appendfsync everysec up to the last second of
 * writes, with always nothing it acknowledged. No real means: the real twins kill processes, they do
 * not cut a machine's power.
 */
export const powerLossFamily = faultFamily<'power-loss', typeof powerLossSchemas>({
  family: 'power-loss',
  description: 'a store node\'s machine loses power; it restarts from what its disk had fsynced',
  schemas: powerLossSchemas,
  apply(world, f, exposure) {
    superviseCrash(world, f, 'power-lost', exposure);
  },
  healAll(world) {
    world.topology.recoverAll();
  },
  // Named only (--faults, a row's draw) until the table is regenerated: in the default draw they
  // would re-draw every swarm and explore schedule measured so far.
  drawnByDefault: false,
  applicable: () => true,
  generate(rng, ctx) {
    const t = ctx.config.topology;
    const pr = t.kind === 'primary-replica';
    const target = pr && rng.chance(0.5) ? ctx.zones[0]! : rng.pick(ctx.zones);
    const durationMs = pr ? between(rng, 0.1 * t.failoverDelayMs, 3 * t.failoverDelayMs) : between(rng, 100, ctx.safetyMs / 2);
    return [{ at: ctx.at, kind: 'power-loss' as const, zone: target, durationMs }];
  },
  targets: (f) => ({ zones: [f.zone] }),
  band: (f, t, ctx) => supervisedCrashBand(f, t, ctx, 'power lost:'),
  exposureNames: SUPERVISED_CRASH_EXPOSURE,
  advice: {
    atLeastOnce: 'appendfsync everysec loses up to a second of acknowledged writes with the machine: use appendfsync always, or durable writes (WAIT) so that a replica holds them, with a primary that comes back after failover.',
    unackRecovery: 'un-ack entries written since the last fsync die with the machine: appendfsync always, or durable writes (WAIT).',
    noDoublePop: 'a lease written since the last fsync is lost with the machine and the message handed out again: appendfsync always.',
    acksAreFinal: 'an ack written since the last fsync is undone with the machine: appendfsync always.',
    deliveredPromptly: 'while the node is down its shard cannot be popped: due messages wait for the restart or the failover.',
  },
  bandColour: '#8e562e',
  docsNote: "what the node keeps: `topology.persistence`; no real means (the real twins kill processes; they cut no machine's power); drawn only when named: never by a swarm row or `explore` by default",
});
