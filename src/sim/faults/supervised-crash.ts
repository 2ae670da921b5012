import type { NodeLoss } from '../settings/persistence.js';
import { nodeName } from '../topology/node-name.js';
import { PrimaryReplicaTopology } from '../topology/primary-replica.js';
import type { Exposure } from './exposure.js';
import type { BandContext, Band, FaultWorld } from './fault-package.js';

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
 * past the failover delay has been replaced by then and rejoins as a replica. Under the supervisor
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
