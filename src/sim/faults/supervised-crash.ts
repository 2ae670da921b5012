import * as z from 'zod';
import type { PropertyName } from '../../model/properties.js';
import type { Rng } from '../kernel/rng.js';
import { at, ms, zone } from '../settings/atoms.js';
import type { NodeLoss } from '../settings/persistence.js';
import type { TopologyKind } from '../store/topology.js';
import { nodeName } from '../topology/node-name.js';
import { PrimaryReplicaTopology } from '../topology/primary-replica.js';
import type { Exposure } from './exposure.js';
import { faultFamily, type BandContext, type Band, type DrawContext, type FaultWorld } from './fault-package.js';

/** A fault that ends a node's process for `durationMs`, after which its supervisor starts it again. */
export interface SupervisedCrash {
  readonly kind: string;
  readonly zone: string;
  readonly durationMs: number;
}

/** What the families of supervised crashes count, most telling first. */
export const SUPERVISED_CRASH_EXPOSURE = [
  'promotions',
  'writes lost',
  'restarted empty',
  'empty primary kept down',
  'restarted from an older disk',
  'primary crashed',
  'requests refused',
  'restarted from disk',
] as const;

/**
 * The node's process ends (`loss`): its memory becomes what its disk kept (topology.persistence),
 * and `durationMs` later its supervisor starts it again; on a primary with replicas, a primary down
 * past the failover delay is replaced (at the promotion, if it came back before) and rejoins as a replica. Under the supervisor
 * rule (topology.keepEmptyPrimaryDown) a primary whose disk kept nothing is started only once Sentinel
 * has promoted a replica: restarted at once, it would be the primary again, empty, and its replicas
 * would resync from it and lose everything too.
 */
export function superviseCrash(world: FaultWorld, fault: SupervisedCrash, loss: NodeLoss, exposure: Exposure): void {
  const node = world.topology.nodes.find((n) => n.zone === fault.zone)!;
  if (!node.up) return;
  const topology = world.topology;
  const pr = topology instanceof PrimaryReplicaTopology ? topology : null;
  const o = world.observations;
  if (pr?.primary === node) exposure.add('primary crashed');
  const stops = [
    o.listen('refused', (e) => e.node === node.name && exposure.add('requests refused')),
    o.listen('lost', (e) => e.node === node.name && exposure.add('writes lost', e.writes)),
    o.listen('promoted', () => !node.up && exposure.add('promotions')),
  ];
  exposure.atEnd(() => stops.forEach((stop) => stop()));
  const disk = node.disk(loss);
  topology.crash(node, disk !== 'all');
  node.forgetScripts();
  if (typeof disk === 'object') node.reload(disk);
  const restart = () => {
    if (node.up) return;
    exposure.add(disk === 'all' ? 'restarted from disk' : disk === 'nothing' ? 'restarted empty' : 'restarted from an older disk');
    world.trace.record({ t: world.kernel.now, actor: 'nemesis', op: 'supervisor-start', args: { zone: fault.zone } });
    topology.restart(node);
    topology.resume();
  };
  world.kernel.after(fault.durationMs, () => {
    if (node.up) return;
    if (!(world.config.topology.keepEmptyPrimaryDown && disk === 'nothing' && pr?.primary === node)) return restart();
    exposure.add('empty primary kept down');
    world.trace.record({ t: world.kernel.now, actor: 'nemesis', op: 'supervisor-holds', args: { zone: fault.zone } });
    // After the promotion has finished (the event is emitted while it runs), as a replica.
    const stop = o.listen('promoted', () => {
      stop();
      world.kernel.after(0, restart);
    });
    exposure.atEnd(stop);
  });
}

/** The band of a supervised crash: the node's lane while it is down. */
export function supervisedCrashBand(f: SupervisedCrash, t: number, ctx: BandContext, what: string): Band {
  return { kind: f.kind, lane: nodeName(ctx.config.topology.kind, ctx.config.topology.zones, f.zone), from: t, to: t + f.durationMs, label: `${what} ${f.zone} for ${f.durationMs} ms` };
}

/** The one schema of a supervised crash: a zone's node ends `kind`-wise and is started again `durationMs` later. */
function supervisedCrashSchema<const K extends string>(kind: K, zoneText: string, durationText: string) {
  return z
    .object({
      at,
      kind: z.literal(kind).describe(`the fault: ${kind}`),
      zone: zone.describe(zoneText),
      durationMs: ms.describe(durationText),
    })
    .strict();
}

/** What a family of supervised crashes says of itself; how it strikes, heals, targets and is drawn is shared. */
interface SupervisedCrashSpec<N extends string, K extends string> {
  readonly family: N;
  readonly kind: K;
  readonly description: string;
  /** What its schema says of the zone and of the duration. */
  readonly zoneText: string;
  readonly durationText: string;
  /** How the node's process ends: what its disk keeps depends on it. */
  readonly loss: NodeLoss;
  readonly requiresTopology?: TopologyKind;
  /** The restart's delay, drawn after the target (the random stream's order is the trace's). */
  durationMs(rng: Rng, ctx: DrawContext): number;
  /** What its band's label starts with. */
  readonly bandLabel: string;
  readonly advice: Readonly<Partial<Record<PropertyName, string>>>;
  readonly bandColour: string;
  readonly docsNote: string;
}

/**
 * A family of crashes a supervisor restarts from the node's disk (superviseCrash): on a primary with
 * replicas half of them strike the first zone's node (the primary at the start), the others any zone.
 */
export function supervisedCrashFamily<const N extends string, const K extends string>(spec: SupervisedCrashSpec<N, K>) {
  const requires = spec.requiresTopology;
  return faultFamily({
    family: spec.family,
    description: spec.description,
    schemas: [supervisedCrashSchema(spec.kind, spec.zoneText, spec.durationText)] as const,
    ...(requires ? { requiresTopology: requires } : {}),
    apply(world, f, exposure) {
      superviseCrash(world, f, spec.loss, exposure);
    },
    healAll(world) {
      world.topology.recoverAll();
    },
    // Named only (--faults, a row's draw) until the table is regenerated: in the default draw they
    // would re-draw every swarm and explore schedule measured so far.
    drawnByDefault: false,
    applicable: (c) => requires === undefined || c.topology.kind === requires,
    generate(rng, ctx) {
      const target = ctx.config.topology.kind === 'primary-replica' && rng.chance(0.5) ? ctx.zones[0]! : rng.pick(ctx.zones);
      return [{ at: ctx.at, kind: spec.kind, zone: target, durationMs: spec.durationMs(rng, ctx) }];
    },
    targets: (f) => ({ zones: [f.zone] }),
    band: (f, t, ctx) => supervisedCrashBand(f, t, ctx, spec.bandLabel),
    exposureNames: SUPERVISED_CRASH_EXPOSURE,
    advice: spec.advice,
    bandColour: spec.bandColour,
    docsNote: spec.docsNote,
  });
}
