import * as z from 'zod';
import { at, between, ms, zone } from '../settings/atoms.js';
import { faultFamily } from './fault-package.js';
import { superviseCrash, supervisedCrashBand, SUPERVISED_CRASH_EXPOSURE } from './supervised-crash.js';

const killProcessPastFailover = z
  .object({
    at,
    kind: z.literal('kill-process-past-failover').describe('the fault: kill-process-past-failover'),
    zone: zone.describe('the zone whose server process is killed (SIGKILL): it loses its memory and keeps its disk (topology.persistence)'),
    durationMs: ms.describe('ms until its supervisor starts it again, drawn past the failover delay: a killed primary has been replaced by then and rejoins as a replica'),
  })
  .strict();
export const processCrashFailoverSchemas = [killProcessPastFailover] as const;

/**
 * A server process killed and down past Sentinel's failover delay (primary-replica): a replica is
 * promoted, and what the old primary acknowledged but had not replicated to it is gone whatever the
 * old primary's disk kept, since it rejoins as a replica and resyncs from the new primary.
 */
export const processCrashFailover = faultFamily<'process-crash-failover', typeof processCrashFailoverSchemas>({
  family: 'process-crash-failover',
  description: 'a store node\'s process is killed and restarted from its disk after a failover',
  schemas: processCrashFailoverSchemas,
  requiresTopology: 'primary-replica',
  apply(world, f, exposure) {
    superviseCrash(world, f, 'process-killed', exposure);
  },
  healAll(world) {
    world.topology.recoverAll();
  },
  // Named only (--faults, a row's draw) until the table is regenerated: in the default draw they
  // would re-draw every swarm and explore schedule measured so far.
  drawnByDefault: false,
  applicable: (c) => c.topology.kind === 'primary-replica',
  generate(rng, ctx) {
    const t = ctx.config.topology;
    const target = rng.chance(0.5) ? ctx.zones[0]! : rng.pick(ctx.zones);
    return [{ at: ctx.at, kind: 'kill-process-past-failover' as const, zone: target, durationMs: between(rng, 1.5 * t.failoverDelayMs, 3 * t.failoverDelayMs) }];
  },
  targets: (f) => ({ zones: [f.zone] }),
  band: (f, t, ctx) => supervisedCrashBand(f, t, ctx, 'process killed past failover:'),
  exposureNames: SUPERVISED_CRASH_EXPOSURE,
  advice: {
    atLeastOnce: 'a promoted replica lacks what the old primary acknowledged and had not replicated, whatever its disk kept: use durable writes (WAIT for a replica) for pushes and acks.',
    unackRecovery: 'un-ack entries the promoted replica never received are lost: use durable writes (WAIT).',
    noDoublePop: 'a lease not replicated before the failover is lost, so the message is handed out again: make lease writes durable (WAIT) or accept duplicates.',
    acksAreFinal: 'an ack not replicated before the failover is undone: use durable acks and treat DurabilityError as unknown.',
    deliveredPromptly: 'while the primary is down and until Sentinel promotes a replica (failoverDelayMs), nothing can be popped.',
  },
  bandColour: '#750b1c',
  docsNote: "what the node keeps: `topology.persistence`; drawn only when named: never by a swarm row or `explore` by default",
});
