import type { Fault, SimConfig } from '../../sim/run/config.js';
import type { RealCluster } from '../cluster.js';
import { withProbe } from '../processes/probe.js';
import type { RealActor } from './real-actor.js';

/** What a real fault acts on: the processes, and the clients of this Node process. */
export interface RealFaultWorld {
  readonly cluster: RealCluster;
  actor(name: string): RealActor | undefined;
  actors(): Iterable<RealActor>;
  /** Called with every process action the fault took, for the run's log. */
  log(line: string): void;
  /** ms since the run began: when a fault really struck or healed. */
  now(): number;
}

/**
 * The schedule as it really happened: each fault that struck, at the time it took effect (a crash when
 * the process was killed, a restart when the process answered again), a partition or a pause with the
 * duration it really lasted. Re-simulated, it compares the simulator with the run seed by seed.
 */
export class HappenedSchedule {
  private readonly faults: Fault[] = [];

  /** A fault struck now (ms since the start); returns a setter for its real duration once it healed. */
  struck(fault: Fault, at: number): (durationMs: number) => void {
    const index = this.faults.push({ ...fault, at: Math.round(at) }) - 1;
    return (durationMs) => {
      const f = this.faults[index]!;
      if ('durationMs' in f) this.faults[index] = { ...f, durationMs: Math.max(1, Math.round(durationMs)) };
    };
  }

  /** The faults in the order they took effect. */
  list(): Fault[] {
    return [...this.faults].sort((a, b) => a.at - b.at);
  }
}

type Kind = Fault['kind'];
type FaultOf<K extends Kind> = Extract<Fault, { kind: K }>;

/** A partition in effect, with the timer that heals it and what records its real duration. */
interface RealPartition {
  readonly from: string;
  readonly to: string;
  readonly timer: NodeJS.Timeout;
  readonly since: number;
  readonly healed: (durationMs: number) => void;
}

/** A paused process's resume timer, when it was paused and what records its real duration. */
interface RealPause {
  readonly timer: NodeJS.Timeout;
  readonly since: number;
  readonly healed: (durationMs: number) => void;
}

/** Per zone, what is down and whether it comes back empty; paused processes with their resume timers; partitions in effect. */
export class RealFaultState {
  readonly nodesDown = new Map<string, boolean>();
  readonly backendsDown = new Map<string, boolean>();
  readonly paused = new Map<string, RealPause>();
  readonly partitions = new Set<RealPartition>();
  readonly happened = new HappenedSchedule();
  /** Per zone, the timer that frees a Redis put over its maxmemory. */
  readonly memory = new Map<string, NodeJS.Timeout>();
  /** Clients a client-failover fault moved off their zone's node. */
  readonly movedClients = new Set<string>();
}

const FILLER_KEY = 'dynoq-twin:tenant';

/** `used_memory` and `used_memory_dataset` of a redis-server. */
async function memoryOf(port: number): Promise<{ used: number; dataset: number }> {
  const info = await withProbe(port, (c) => c.info('memory'));
  const field = (name: string) => Number(new RegExp(`^${name}:(\\d+)`, 'm').exec(info)?.[1] ?? 0);
  return { used: field('used_memory'), dataset: field('used_memory_dataset') };
}

/**
 * Puts the zone's redis-server over its maxmemory as the simulated fault does: what fits is
 * `fraction` of its dataset, by CONFIG SET maxmemory (means 'limit', also for eviction) or by a
 * maxmemory at what it uses now and a filler client's key (means 'tenant'); freed after `durationMs`.
 */
async function pressMemory(
  w: RealFaultWorld,
  s: RealFaultState,
  f: FaultOf<'memory-pressure' | 'eviction'>,
): Promise<void> {
  if (s.memory.has(f.zone)) return;
  const port = w.cluster.redisPort(f.zone);
  const { used, dataset } = await memoryOf(port);
  const over = Math.max(1, Math.floor(dataset * (1 - f.fraction)));
  const policy = f.kind === 'eviction' ? f.policy : 'noeviction';
  const means = f.kind === 'memory-pressure' ? f.means : 'limit';
  await withProbe(port, async (c) => {
    await c.config('SET', 'maxmemory-policy', policy);
    // The tenant's key first, then the limit at what the server used before it: a SET sent with the
    // limit already at the server's use would be refused (its own query buffer takes it over).
    if (means === 'tenant') await c.set(FILLER_KEY, 'x'.repeat(over));
    await c.config('SET', 'maxmemory', String(means === 'tenant' ? used : Math.max(1, used - over)));
  });
  const since = w.now();
  const healed = s.happened.struck(f, since);
  w.log(`redis of ${f.zone} over its maxmemory by ${over} B (${means === 'tenant' ? 'a filler client' : 'CONFIG SET maxmemory'}, ${policy}) for ${f.durationMs} ms`);
  s.memory.set(
    f.zone,
    setTimeout(() => {
      s.memory.delete(f.zone);
      void freeMemory(w, f.zone).then(() => healed(w.now() - since));
    }, f.durationMs),
  );
}

/** Lifts the limit (maxmemory 0, noeviction) and removes the filler; a server that is down is left alone. */
async function freeMemory(w: RealFaultWorld, zone: string): Promise<void> {
  try {
    await withProbe(w.cluster.redisPort(zone), async (c) => {
      await c.del(FILLER_KEY);
      await c.config('SET', 'maxmemory', '0');
      await c.config('SET', 'maxmemory-policy', 'noeviction');
    });
    w.log(`redis of ${zone} freed (maxmemory 0)`);
  } catch (err) {
    w.log(`redis of ${zone} not freed: ${err instanceof Error ? err.message : String(err)}`);
  }
}

/** How each fault a real twin can strike is done by real means. */
const REAL_FAULTS: { readonly [K in Kind]?: (w: RealFaultWorld, s: RealFaultState, f: FaultOf<K>) => Promise<void> } = {
  'crash-node': async (w, s, f) => {
    if (s.nodesDown.has(f.zone)) return;
    s.nodesDown.set(f.zone, f.loseUnreplicated);
    await w.cluster.crashNode(f.zone);
    s.happened.struck(f, w.now());
    w.log(`SIGKILL node ${f.zone}`);
  },
  'restart-node': async (w, s, f) => {
    const empty = s.nodesDown.get(f.zone);
    if (empty === undefined) return;
    s.nodesDown.delete(f.zone);
    await w.cluster.restartNode(f.zone, { empty });
    s.happened.struck(f, w.now());
    w.log(`restart node ${f.zone}${empty ? ' empty' : ' from its AOF'}`);
  },
  'crash-backend': async (w, s, f) => {
    if (s.backendsDown.has(f.zone)) return;
    s.backendsDown.set(f.zone, f.loseData);
    await w.cluster.crashBackend(f.zone);
    s.happened.struck(f, w.now());
    w.log(`SIGKILL redis of ${f.zone}`);
  },
  'restart-backend': async (w, s, f) => {
    const empty = s.backendsDown.get(f.zone);
    if (empty === undefined) return;
    s.backendsDown.delete(f.zone);
    await w.cluster.restartBackend(f.zone, { empty });
    s.happened.struck(f, w.now());
    w.log(`restart redis of ${f.zone}${empty ? ' empty' : ' from its AOF'}`);
  },
  'stall-node': (w, s, f) => pauseFor(w, s, f, 'node'),
  'stall-backend': (w, s, f) => pauseFor(w, s, f, 'backend'),
  partition: async (w, s, f) => {
    w.cluster.partition(f.from, f.to, f.oneWay);
    const since = w.now();
    const healed = s.happened.struck(f, since);
    const label = `${f.from}${f.oneWay ? '→' : '↔'}${f.to}`;
    w.log(`partition ${label} for ${f.durationMs} ms (peer-link bytes held in the proxies)`);
    const p: RealPartition = {
      from: f.from,
      to: f.to,
      since,
      healed,
      timer: setTimeout(() => {
        s.partitions.delete(p);
        w.cluster.heal(f.from, f.to);
        healed(w.now() - since);
        w.log(`heal partition ${label}`);
      }, f.durationMs),
    };
    s.partitions.add(p);
  },
  'client-failover': async (w, s, f) => {
    const a = w.actor(f.actor);
    if (!a || a.crashed) return;
    a.failOver(w.cluster.nodeAddress(f.toZone));
    s.movedClients.add(f.actor);
    s.happened.struck(f, w.now());
    w.log(`client ${f.actor} fails over to ${f.toZone}`);
  },
  'crash-client': async (w, s, f) => {
    w.actor(f.actor)?.crash();
    s.happened.struck(f, w.now());
    w.log(`crash client ${f.actor}`);
  },
  'clock-skew': async (w, s, f) => {
    const a = w.actor(f.target);
    if (a) a.clock.offset = f.offsetMs;
    s.happened.struck(f, w.now());
  },
  'clock-jump': async (w, s, f) => {
    const a = w.actor(f.target);
    if (a) a.clock.offset += f.deltaMs;
    s.happened.struck(f, w.now());
  },
  'consumer-clocks': async (w, s, f) => {
    for (const a of w.actors()) if (a.name.startsWith('consumer-')) a.clock.offset = f.offsetMs;
    s.happened.struck(f, w.now());
  },
  'memory-pressure': (w, s, f) => pressMemory(w, s, f),
  eviction: (w, s, f) => pressMemory(w, s, f),
};

async function pauseFor(w: RealFaultWorld, s: RealFaultState, f: FaultOf<'stall-node' | 'stall-backend'>, which: 'node' | 'backend'): Promise<void> {
  const key = `${which}:${f.zone}`;
  if (s.paused.has(key)) return;
  w.cluster.pause(f.zone, which);
  const since = w.now();
  const healed = s.happened.struck(f, since);
  w.log(`SIGSTOP ${which} ${f.zone} for ${f.durationMs} ms`);
  s.paused.set(key, {
    since,
    healed,
    timer: setTimeout(() => {
      s.paused.delete(key);
      w.cluster.resume(f.zone, which);
      healed(w.now() - since);
      w.log(`SIGCONT ${which} ${f.zone}`);
    }, f.durationMs),
  });
}

/** The fault kinds a real twin can strike. */
export const REAL_FAULT_KINDS: readonly Kind[] = Object.keys(REAL_FAULTS) as Kind[];

/** Why a configuration cannot run on real processes (none: it can). */
export function realTwinProblems(config: SimConfig): string[] {
  const problems: string[] = [];
  const t = config.topology;
  if (t.kind !== 'primary-replica' && t.kind !== 'dynomite') problems.push(`topology ${t.kind as string} has no real twin (primary-replica and dynomite do)`);
  if (config.network.clientFailover && t.kind !== 'dynomite') problems.push('network.clientFailover: a failover client moves between Dynomite nodes; on a primary with replicas the client follows Sentinel');
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
    p.healed(w.now() - p.since);
    w.log(`heal partition ${p.from}/${p.to} (liveness)`);
  }
  s.partitions.clear();
  for (const [key, pause] of s.paused) {
    clearTimeout(pause.timer);
    const [which, zone] = key.split(':') as ['node' | 'backend', string];
    w.cluster.resume(zone, which);
    pause.healed(w.now() - pause.since);
    w.log(`SIGCONT ${which} ${zone} (liveness)`);
  }
  s.paused.clear();
  await Promise.all(
    [...s.memory].map(async ([zone, timer]) => {
      clearTimeout(timer);
      await freeMemory(w, zone);
    }),
  );
  s.memory.clear();
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
  for (const a of w.actors()) {
    a.clock.offset = 0;
    // Back to its own zone's node, as the simulator's liveness phase moves every connection home.
    if (s.movedClients.has(a.name)) a.failOver(w.cluster.nodeAddress(a.zone));
  }
  s.movedClients.clear();
}

/**
 * What a fault acts on, for keeping the schedule's order per target: a fault waits for the one before
 * it on the same target to finish (a crash of a zone still restarting strikes once it is up, as in the
 * simulation, where a restart is instant). Store faults act on the zone's rack; client faults on the client.
 */
export function faultTarget(f: Fault): string {
  switch (f.kind) {
    case 'crash-node':
    case 'restart-node':
    case 'crash-backend':
    case 'restart-backend':
    case 'stall-node':
    case 'stall-backend':
      return `zone:${f.zone}`;
    case 'partition':
      return `partition:${f.from}/${f.to}`;
    case 'crash-client':
    case 'client-failover':
      return `client:${f.actor}`;
    case 'clock-skew':
    case 'clock-jump':
      return `client:${f.target}`;
    default:
      return `fault:${f.kind}`;
  }
}
