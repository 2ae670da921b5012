import type { Fault } from './config.js';
import type { SimActor } from './actor.js';
import type { Kernel } from './kernel.js';
import type { Network } from './network.js';
import type { Rng } from './rng.js';
import type { SimNode } from './sim-node.js';
import type { Topology } from './topology/topology.js';
import type { Trace } from './trace.js';

export interface FaultWorld {
  readonly kernel: Kernel;
  readonly network: Network;
  readonly topology: Topology;
  readonly trace: Trace;
  actor(name: string): SimActor | undefined;
}

function nodeInZone(topology: Topology, zone: string): SimNode | undefined {
  return topology.nodes.find((n) => n.zone === zone);
}

function clockOf(world: FaultWorld, target: string): { offset: number } | undefined {
  return world.actor(target)?.clock ?? world.topology.nodes.find((n) => n.name === target)?.clock;
}

/** Applies one fault now. Unknown targets are reported in the trace, not thrown. */
export function applyFault(world: FaultWorld, fault: Fault): void {
  const { kernel, network, topology } = world;
  world.trace.record({ t: kernel.now, actor: 'nemesis', op: fault.kind, args: fault });
  const missing = (what: string) => world.trace.record({ t: kernel.now, actor: 'nemesis', op: 'fault-target-missing', args: what });
  switch (fault.kind) {
    case 'crash-node': {
      const node = nodeInZone(topology, fault.zone);
      if (node) topology.crash(node, fault.loseUnreplicated);
      else missing(fault.zone);
      return;
    }
    case 'restart-node': {
      const node = nodeInZone(topology, fault.zone);
      if (node) topology.restart(node);
      else missing(fault.zone);
      return;
    }
    case 'partition':
      network.block(fault.from, fault.to);
      if (!fault.oneWay) network.block(fault.to, fault.from);
      kernel.after(fault.durationMs, () => {
        network.healAll();
        topology.resume();
        world.trace.record({ t: kernel.now, actor: 'nemesis', op: 'heal-partition' });
      });
      return;
    case 'client-failover': {
      const actor = world.actor(fault.actor);
      if (actor) for (const c of actor.connections) c.nodeZone = fault.toZone;
      else missing(fault.actor);
      return;
    }
    case 'crash-client': {
      const actor = world.actor(fault.actor);
      if (actor) actor.crash();
      else missing(fault.actor);
      return;
    }
    case 'pause-client': {
      const actor = world.actor(fault.actor);
      if (actor) actor.pause(kernel.now + fault.durationMs);
      else missing(fault.actor);
      return;
    }
    case 'clock-skew': {
      const clock = clockOf(world, fault.target);
      if (clock) clock.offset = fault.offsetMs;
      else missing(fault.target);
      return;
    }
    case 'clock-jump': {
      const clock = clockOf(world, fault.target);
      if (clock) clock.offset += fault.deltaMs;
      else missing(fault.target);
      return;
    }
    case 'lag-spike':
      network.extraLagMs += fault.extraMs;
      kernel.after(fault.durationMs, () => {
        network.extraLagMs = Math.max(0, network.extraLagMs - fault.extraMs);
      });
      return;
  }
}

export interface FaultGeneratorOptions {
  readonly count: number;
  readonly safetyMs: number;
  readonly zones: readonly string[];
  readonly consumers: readonly string[];
  readonly kinds?: readonly Fault['kind'][];
}

const ALL_KINDS: readonly Fault['kind'][] = [
  'crash-node',
  'partition',
  'client-failover',
  'crash-client',
  'pause-client',
  'clock-skew',
  'clock-jump',
  'lag-spike',
];

/** A seeded fault schedule (swarm testing): each fault kind and time drawn from the rng. */
export function generateFaults(rng: Rng, o: FaultGeneratorOptions): Fault[] {
  const kinds = o.kinds ?? ALL_KINDS;
  const faults: Fault[] = [];
  for (let i = 0; i < o.count; i++) {
    const at = rng.int(0, Math.max(0, o.safetyMs - 1));
    const kind = rng.pick(kinds);
    const zone = rng.pick(o.zones);
    const other = rng.pick(o.zones.filter((z) => z !== zone).length > 0 ? o.zones.filter((z) => z !== zone) : o.zones);
    const actor = rng.pick(o.consumers);
    const span = rng.int(100, Math.max(100, Math.floor(o.safetyMs / 3)));
    switch (kind) {
      case 'crash-node':
        faults.push({ at, kind, zone, loseUnreplicated: rng.chance(0.5) });
        faults.push({ at: at + span, kind: 'restart-node', zone });
        break;
      case 'restart-node':
        faults.push({ at, kind, zone });
        break;
      case 'partition':
        faults.push({ at, kind, from: zone, to: other, oneWay: rng.chance(0.5), durationMs: span });
        break;
      case 'client-failover':
        faults.push({ at, kind, actor, toZone: other });
        break;
      case 'crash-client':
        faults.push({ at, kind, actor });
        break;
      case 'pause-client':
        faults.push({ at, kind, actor, durationMs: span });
        break;
      case 'clock-skew':
        faults.push({ at, kind, target: actor, offsetMs: rng.int(-5_000, 5_000) });
        break;
      case 'clock-jump':
        faults.push({ at, kind, target: actor, deltaMs: rng.int(-10_000, 10_000) });
        break;
      case 'lag-spike':
        faults.push({ at, kind, extraMs: rng.int(50, 2_000), durationMs: span });
        break;
    }
  }
  return faults.sort((a, b) => a.at - b.at);
}
