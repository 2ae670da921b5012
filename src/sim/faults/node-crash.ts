import * as z from 'zod';
import type { SimNode } from '../store/sim-node.js';
import { nodeName } from '../topology/node-name.js';
import { at, between, zone } from '../settings/atoms.js';
import type { Exposure } from './exposure.js';
import { faultFamily, type FaultWorld } from './fault-package.js';

const crashNode = z
  .object({
    at,
    kind: z.literal('crash-node').describe('the fault: crash-node'),
    zone: zone.describe('the zone whose node (Dynomite node, or Redis primary/replica) dies'),
    loseUnreplicated: z.boolean().default(false).describe('it restarts empty: writes it had not replicated are gone'),
  })
  .strict();
const restartNode = z.object({ at, kind: z.literal('restart-node').describe('the fault: restart-node'), zone: zone.describe('the zone whose node comes back') }).strict();
type NodeFault = z.output<typeof crashNode> | z.output<typeof restartNode>;
const nodeCrashSchemas = [crashNode, restartNode] as const;

function nodeIn(world: FaultWorld, zoneName: string): SimNode {
  return world.topology.nodes.find((n) => n.zone === zoneName)!;
}

function strike(world: FaultWorld, node: SimNode, loseUnreplicated: boolean, exposure: Exposure): void {
  const o = world.observations;
  const wasPrimary = world.config.topology.kind === 'primary-replica' && node.name === primaryName(world);
  if (wasPrimary) exposure.add('primary crashed');
  const stops = [
    o.listen('refused', (e) => e.node === node.name && exposure.add('requests refused')),
    o.listen('lost', (e) => e.node === node.name && exposure.add('writes lost', e.writes)),
    o.listen('promoted', () => !node.up && exposure.add('promotions')),
  ];
  exposure.atEnd(() => stops.forEach((stop) => stop()));
  world.topology.crash(node, loseUnreplicated);
}

function primaryName(world: FaultWorld): string | undefined {
  return (world.topology as { primary?: SimNode }).primary?.name;
}

/** Node crashes and restarts; on a primary with replicas, an outage past the failover delay promotes a replica. */
export const nodeCrash = faultFamily<'node-crash', typeof nodeCrashSchemas>({
  family: 'node-crash',
  description: 'a store node dies (with or without losing unreplicated writes) and later restarts',
  schemas: nodeCrashSchemas,
  apply(world, fault, exposure) {
    const node = nodeIn(world, fault.zone);
    if (fault.kind === 'crash-node') {
      if (node.up) strike(world, node, fault.loseUnreplicated, exposure);
    } else if (!node.up) {
      exposure.add('restarted');
      world.topology.restart(node);
    }
  },
  healAll(world) {
    world.topology.recoverAll();
  },
  applicable: () => true,
  generate(rng, ctx) {
    const c = ctx.config;
    // On a primary with replicas, crash the primary half the time; outages straddle the failover delay.
    const pr = c.topology.kind === 'primary-replica';
    const target = pr && rng.chance(0.5) ? ctx.zones[0]! : rng.pick(ctx.zones);
    const crash = { at: ctx.at, kind: 'crash-node' as const, zone: target, loseUnreplicated: rng.chance(0.5) };
    if (rng.chance(0.25)) return [crash];
    const span = pr ? between(rng, 0.3 * c.topology.failoverDelayMs, 3 * c.topology.failoverDelayMs) : between(rng, 100, ctx.safetyMs / 2);
    return [crash, { at: ctx.at + span, kind: 'restart-node', zone: target }];
  },
  targets: (f) => ({ zones: [f.zone] }),
  band(f, t, ctx) {
    if (f.kind !== 'crash-node') return null;
    const restart = ctx.faults.slice(ctx.index + 1).find((x) => x.fault.kind === 'restart-node' && (x.fault as NodeFault).zone === f.zone);
    const lane = nodeName(ctx.config.topology.kind, ctx.config.topology.zones, f.zone);
    return { kind: f.kind, lane, from: t, to: restart?.t ?? ctx.livenessStart, label: `crash ${f.zone}${f.loseUnreplicated ? ' (data lost)' : ''}` };
  },
  exposureNames: ['promotions', 'writes lost', 'primary crashed', 'requests refused', 'restarted'],
  advice: {
    deliveredPromptly: 'while a shard\'s node is down or failing over, its consumers cannot pop: due messages wait for the failover (failoverDelayMs, then about 1.2 s for Sentinel\'s vote and the promotion) or the restart. With durable writes on a Redis primary, a restarted Redis (primary or replica) counts for WAIT only after a full resynchronisation, `repl-diskless-sync-delay` (5 s by default) later: every durable write, pops included, fails until then; set it to 0 where replicas sync over a fast network.',
    priorityOrder: 'a replica that missed a more urgent push serves a less urgent message first until the push arrives: pop through the quorum connection.',
    atLeastOnce:
      'a write acknowledged by one node can die with it: on Redis, persist the primary (AOF, appendfsync always) and use durable writes (WAIT) for pushes; on Dynomite no repair exists, so a node that lost data must be rebuilt before it rejoins.',
    unackRecovery: 'un-ack entries die with unreplicated writes; durable acks and a primary that restarts only after failover keep them.',
    noDoublePop: 'a lease that was not replicated is lost at promotion, and so is one taken on an old primary that came back before Sentinel promoted a replica (about 1.2 s after down-after): the message is handed out again while its holder still works. Pops are not durable: start a crashed primary again only once Sentinel has replaced it (as a replica of the new one), or accept duplicates.',
    acksAreFinal: 'an ack that was not replicated is lost at promotion: use durable acks and treat DurabilityError as unknown. On a primary with replicas, an old primary that came back before Sentinel promoted a replica keeps serving the clients that reached it, from its own data, until Sentinel demotes it about 10 s later: a message acked on the new primary is handed out again there. Start a crashed primary again only once Sentinel has replaced it.',
  },
  bandColour: '#d13438',
});
