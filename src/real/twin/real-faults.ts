import type { Fault, SimConfig } from '../../sim/run/config.js';
import type { RealCluster } from '../cluster.js';
import type { RealActor } from './real-actor.js';

/** What a real fault acts on: the processes, and the clients of this Node process. */
export interface RealFaultWorld {
  readonly cluster: RealCluster;
  actor(name: string): RealActor | undefined;
  actors(): Iterable<RealActor>;
  /** Called with every process action the fault took, for the run's log. */
  log(line: string): void;
}

type Kind = Fault['kind'];
type FaultOf<K extends Kind> = Extract<Fault, { kind: K }>;

/** A partition in effect, with the timer that heals it. */
interface RealPartition {
  readonly from: string;
  readonly to: string;
  readonly timer: NodeJS.Timeout;
}

/** Per zone, what is down and whether it comes back empty; paused processes with their resume timers; partitions in effect. */
export class RealFaultState {
  readonly nodesDown = new Map<string, boolean>();
  readonly backendsDown = new Map<string, boolean>();
  readonly paused = new Map<string, NodeJS.Timeout>();
  readonly partitions = new Set<RealPartition>();
}

/** How each fault a real twin can strike is done by real means. */
const REAL_FAULTS: { readonly [K in Kind]?: (w: RealFaultWorld, s: RealFaultState, f: FaultOf<K>) => Promise<void> } = {
  'crash-node': async (w, s, f) => {
    if (s.nodesDown.has(f.zone)) return;
    s.nodesDown.set(f.zone, f.loseUnreplicated);
    await w.cluster.crashNode(f.zone);
    w.log(`SIGKILL node ${f.zone}`);
  },
  'restart-node': async (w, s, f) => {
    const empty = s.nodesDown.get(f.zone);
    if (empty === undefined) return;
    s.nodesDown.delete(f.zone);
    await w.cluster.restartNode(f.zone, { empty });
    w.log(`restart node ${f.zone}${empty ? ' empty' : ' from its AOF'}`);
  },
  'crash-backend': async (w, s, f) => {
    if (s.backendsDown.has(f.zone)) return;
    s.backendsDown.set(f.zone, f.loseData);
    await w.cluster.crashBackend(f.zone);
    w.log(`SIGKILL redis of ${f.zone}`);
  },
  'restart-backend': async (w, s, f) => {
    const empty = s.backendsDown.get(f.zone);
    if (empty === undefined) return;
    s.backendsDown.delete(f.zone);
    await w.cluster.restartBackend(f.zone, { empty });
    w.log(`restart redis of ${f.zone}${empty ? ' empty' : ' from its AOF'}`);
  },
  'stall-node': (w, s, f) => pauseFor(w, s, f.zone, 'node', f.durationMs),
  'stall-backend': (w, s, f) => pauseFor(w, s, f.zone, 'backend', f.durationMs),
  partition: async (w, s, f) => {
    w.cluster.partition(f.from, f.to, f.oneWay);
    const label = `${f.from}${f.oneWay ? '→' : '↔'}${f.to}`;
    w.log(`partition ${label} for ${f.durationMs} ms (peer-link bytes held in the proxies)`);
    const p: RealPartition = {
      from: f.from,
      to: f.to,
      timer: setTimeout(() => {
        s.partitions.delete(p);
        w.cluster.heal(f.from, f.to);
        w.log(`heal partition ${label}`);
      }, f.durationMs),
    };
    s.partitions.add(p);
  },
  'crash-client': async (w, _s, f) => {
    w.actor(f.actor)?.crash();
    w.log(`crash client ${f.actor}`);
  },
  'clock-skew': async (w, _s, f) => {
    const a = w.actor(f.target);
    if (a) a.clock.offset = f.offsetMs;
  },
  'clock-jump': async (w, _s, f) => {
    const a = w.actor(f.target);
    if (a) a.clock.offset += f.deltaMs;
  },
  'consumer-clocks': async (w, _s, f) => {
    for (const a of w.actors()) if (a.name.startsWith('consumer-')) a.clock.offset = f.offsetMs;
  },
};

async function pauseFor(w: RealFaultWorld, s: RealFaultState, zone: string, which: 'node' | 'backend', ms: number): Promise<void> {
  const key = `${which}:${zone}`;
  if (s.paused.has(key)) return;
  w.cluster.pause(zone, which);
  w.log(`SIGSTOP ${which} ${zone} for ${ms} ms`);
  s.paused.set(
    key,
    setTimeout(() => {
      s.paused.delete(key);
      w.cluster.resume(zone, which);
      w.log(`SIGCONT ${which} ${zone}`);
    }, ms),
  );
}

/** The fault kinds a real twin can strike. */
export const REAL_FAULT_KINDS: readonly Kind[] = Object.keys(REAL_FAULTS) as Kind[];

/** Why a configuration cannot run on real processes (none: it can). */
export function realTwinProblems(config: SimConfig): string[] {
  const problems: string[] = [];
  const t = config.topology;
  if (t.kind !== 'primary-replica' && t.kind !== 'dynomite') problems.push(`topology ${t.kind as string} has no real twin (primary-replica and dynomite do)`);
  if (config.network.clientFailover) problems.push('network.clientFailover: the real twin runs the client dynoq ships by default (one node, never moves); a failover client is not built here');
  if (config.network.profile === 'wan') problems.push('network.profile wan: real twins run on loopback (lan); the lag spikes would need a proxy per link, not built');
  const clientNames = (name: string) => /^(producer|consumer|operator)/.test(name);
  for (const f of config.faults) {
    if (!(f.kind in REAL_FAULTS)) problems.push(`fault ${f.kind} at ${f.at} ms: no real means built (real faults: ${REAL_FAULT_KINDS.join(', ')})`);
    else if (f.kind === 'partition' && t.kind !== 'dynomite') problems.push(`fault partition at ${f.at} ms: only Dynomite's peer links go through proxies here; primary-replica clients and replication cross zones through Sentinel, not built`);
    else if ((f.kind === 'clock-skew' || f.kind === 'clock-jump') && !clientNames(f.target)) problems.push(`fault ${f.kind} of ${f.target}: a store node's clock cannot be set off on a real process here (client clocks can)`);
  }
  return problems;
}

/** Strikes one fault on the real processes or clients. */
export function applyRealFault(w: RealFaultWorld, s: RealFaultState, fault: Fault): Promise<void> {
  const run = REAL_FAULTS[fault.kind] as ((w: RealFaultWorld, s: RealFaultState, f: Fault) => Promise<void>) | undefined;
  if (!run) return Promise.reject(new Error(`no real means for fault ${fault.kind}`));
  return run(w, s, fault);
}

/** The liveness phase: every partition heals, every paused process resumes, every crashed node and redis restarts, clocks are true. */
export async function healRealFaults(w: RealFaultWorld, s: RealFaultState): Promise<void> {
  for (const p of s.partitions) {
    clearTimeout(p.timer);
    w.cluster.heal(p.from, p.to);
    w.log(`heal partition ${p.from}/${p.to} (liveness)`);
  }
  s.partitions.clear();
  for (const [key, timer] of s.paused) {
    clearTimeout(timer);
    const [which, zone] = key.split(':') as ['node' | 'backend', string];
    w.cluster.resume(zone, which);
    w.log(`SIGCONT ${which} ${zone} (liveness)`);
  }
  s.paused.clear();
  // At once, as the simulator heals: one restart does not wait for another's peers to reconnect.
  await Promise.all([
    ...[...s.backendsDown].map(async ([zone, empty]) => {
      await w.cluster.restartBackend(zone, { empty });
      w.log(`restart redis of ${zone}${empty ? ' empty' : ' from its AOF'} (liveness)`);
    }),
    ...[...s.nodesDown].map(async ([zone, empty]) => {
      await w.cluster.restartNode(zone, { empty });
      w.log(`restart node ${zone}${empty ? ' empty' : ' from its AOF'} (liveness)`);
    }),
  ]);
  s.backendsDown.clear();
  s.nodesDown.clear();
  for (const a of w.actors()) a.clock.offset = 0;
}
