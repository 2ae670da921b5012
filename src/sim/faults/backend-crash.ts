import * as z from 'zod';
import type { SimNode } from '../store/sim-node.js';
import { DynomiteTopology } from '../topology/dynomite.js';
import { nodeName } from '../topology/node-name.js';
import { at, between, zone } from '../settings/atoms.js';
import { faultFamily, type FaultWorld } from './fault-package.js';

const crashBackend = z
  .object({
    at,
    kind: z.literal('crash-backend').describe('the fault: crash-backend'),
    zone: zone.describe("the zone whose node's redis dies; its Dynomite keeps running, answers with storage errors and still forwards writes to its peers (dynomite only)"),
    loseData: z.boolean().default(false).describe('it restarts empty (no persistence): its data and script cache are gone, and nothing repairs it'),
  })
  .strict();
const restartBackend = z
  .object({ at, kind: z.literal('restart-backend').describe('the fault: restart-backend'), zone: zone.describe("the zone whose node's redis comes back (dynomite only)") })
  .strict();
type BackendFault = z.output<typeof crashBackend> | z.output<typeof restartBackend>;
const backendCrashSchemas = [crashBackend, restartBackend] as const;

function dynomiteOf(world: FaultWorld): DynomiteTopology | null {
  return world.topology instanceof DynomiteTopology ? world.topology : null;
}

function nodeIn(world: FaultWorld, zoneName: string): SimNode {
  return world.topology.nodes.find((n) => n.zone === zoneName)!;
}

/**
 * The redis behind a Dynomite node dies while the Dynomite process lives on (DYNOMITE.md: they are
 * separate processes and fail separately). Clients of that node get an error at once — yet their
 * writes reached the peers: reported failed, applied on two replicas.
 */
export const backendCrash = faultFamily<'backend-crash', typeof backendCrashSchemas>({
  family: 'backend-crash',
  description: "a Dynomite node's redis dies (with or without its data) while the node keeps running, and later restarts",
  schemas: backendCrashSchemas,
  requiresTopology: 'dynomite',
  apply(world, fault, exposure) {
    const dynomite = dynomiteOf(world);
    if (!dynomite) return;
    const node = nodeIn(world, fault.zone);
    if (fault.kind === 'restart-backend') {
      if (dynomite.backendUp(node)) return;
      exposure.add('restarted');
      return dynomite.restartBackend(node);
    }
    if (!dynomite.backendUp(node)) return;
    const o = world.observations;
    const stops = [
      o.listen('storage-error', (e) => e.node === node.name && e.cause === 'dead' && exposure.add('requests answered with a storage error')),
      o.listen('lost', (e) => e.node === node.name && exposure.add('writes lost', e.writes)),
    ];
    exposure.atEnd(() => stops.forEach((stop) => stop()));
    dynomite.crashBackend(node, fault.loseData);
  },
  healAll(world) {
    dynomiteOf(world)?.restartAllBackends();
  },
  applicable: (c) => c.topology.kind === 'dynomite',
  generate(rng, ctx) {
    const target = rng.pick(ctx.zones);
    const crash = { at: ctx.at, kind: 'crash-backend' as const, zone: target, loseData: rng.chance(0.5) };
    if (rng.chance(0.25)) return [crash];
    return [crash, { at: ctx.at + between(rng, 100, ctx.safetyMs / 2), kind: 'restart-backend', zone: target }];
  },
  targets: (f) => ({ zones: [f.zone] }),
  band(f, t, ctx) {
    if (f.kind !== 'crash-backend') return null;
    const restart = ctx.faults.slice(ctx.index + 1).find((x) => x.fault.kind === 'restart-backend' && (x.fault as BackendFault).zone === f.zone);
    const lane = nodeName(ctx.config.topology.kind, ctx.config.topology.zones, f.zone);
    return { kind: f.kind, lane, from: t, to: restart?.t ?? ctx.livenessStart, label: `redis of ${f.zone} dies${f.loseData ? ' (data lost)' : ''}` };
  },
  exposureNames: ['writes lost', 'requests answered with a storage error', 'restarted'],
  advice: {
    deliveredPromptly: 'while a shard\'s redis is down its consumers get storage errors: due messages wait for the restart.',
    atLeastOnce:
      "a redis that dies behind a live Dynomite misses every write meanwhile, and one restarted empty is never repaired: persist redis (AOF) and rebuild a node's data before it rejoins; a storage error is an unknown outcome, not a refusal — retry pushes idempotently.",
    unackRecovery: 'un-ack entries on a redis that restarted empty are gone there, and nothing copies them back: rebuild the node before it rejoins.',
    acksAreFinal: 'an ack that a dead redis missed leaves its replica holding the message: rebuild that replica before it serves reads again.',
  },
  bandColour: '#a4262c',
});
