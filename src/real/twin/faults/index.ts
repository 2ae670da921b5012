import { FAULT_FAMILY_NAMES, familyOf, kindsOf, type FaultFamily, type FaultKind, type FaultOfFamily } from '../../../sim/faults/index.js';
import type { Fault, SimConfig } from '../../../sim/run/config.js';
import { backendCrash } from './backend-crash.js';
import { clientCrash } from './client-crash.js';
import { clientFailover } from './client-failover.js';
import { clientPause } from './client-pause.js';
import { clock } from './clock.js';
import { consumerClocks } from './consumer-clocks.js';
import { HappenedSchedule } from './happened-schedule.js';
import { lagSpike } from './lag-spike.js';
import type { PeerLinks } from '../peer-links.js';
import { nodeCrash } from './node-crash.js';
import { nodeStall } from './node-stall.js';
import { partition } from './partition.js';
import type { RealFaultRun, RealFaultWorld, RealMeans } from './real-means.js';
import { redisMemory } from './redis-memory.js';
import { supervisedCrash } from './supervised-crash.js';

/**
 * The real means of every fault family a real twin can strike, one module each: a family of
 * `src/sim/faults` without a line here is refused by `dynoq sim --real`, naming it. At the liveness
 * phase the means heal in this order (each started at once, none waiting for another).
 */
const REAL_MEANS: { readonly [F in FaultFamily]?: RealMeans<FaultOfFamily<F>> } = {
  partition,
  'lag-spike': lagSpike,
  'node-stall': nodeStall,
  'memory-pressure': redisMemory,
  eviction: redisMemory,
  'backend-crash': backendCrash,
  'node-crash': nodeCrash,
  'client-failover': clientFailover,
  'client-crash': clientCrash,
  'client-pause': clientPause,
  clock,
  'consumer-clocks': consumerClocks,
  'process-crash': supervisedCrash,
  'process-crash-failover': supervisedCrash,
};

function meansOf(kind: FaultKind): RealMeans<Fault> | undefined {
  return REAL_MEANS[familyOf(kind)] as RealMeans<Fault> | undefined;
}

/** The fault families a real twin can strike (some refuse a fault of theirs: `problem`). */
export const REAL_FAULT_FAMILIES: readonly FaultFamily[] = FAULT_FAMILY_NAMES.filter((f) => REAL_MEANS[f]);

/** The fault kinds a real twin can strike. */
const REAL_FAULT_KINDS: readonly FaultKind[] = REAL_FAULT_FAMILIES.flatMap(kindsOf);

/** Why a configuration cannot run on real processes (none: it can). */
export function realTwinProblems(config: SimConfig, peerLinks: PeerLinks = 'configured'): string[] {
  const problems: string[] = [];
  const t = config.topology;
  if (t.kind !== 'primary-replica' && t.kind !== 'dynomite') problems.push(`topology ${t.kind as string} has no real twin (primary-replica and dynomite do)`);
  if (config.network.clientFailover && t.kind !== 'dynomite') problems.push('network.clientFailover: a failover client moves between Dynomite nodes; on a primary with replicas the client follows Sentinel');
  // A Dynomite twin's peer-link proxies draw the wan profile's spikes; a primary's replication has no proxy.
  if (config.network.profile === 'wan' && (t.kind !== 'dynomite' || peerLinks === 'loopback')) problems.push(`network.profile wan: its lag spikes run only on a Dynomite twin's peer links (${t.kind === 'dynomite' ? 'not with --peer-links loopback' : "a primary's replication runs on loopback"})`);
  for (const f of config.faults) {
    const means = meansOf(f.kind);
    const problem = means ? means.problem?.(f, config) : `fault ${f.kind} at ${f.at} ms: no real means built (real faults: ${REAL_FAULT_KINDS.join(', ')})`;
    if (problem !== undefined) problems.push(problem);
  }
  return problems;
}

/** One run's real faults: every family's means started on the run's world, and the schedule as it happened. */
export class RealFaults {
  readonly happened = new HappenedSchedule();
  private readonly runs = new Map<RealMeans<Fault>, RealFaultRun<Fault>>();

  constructor(world: Omit<RealFaultWorld, 'struck'>) {
    const full: RealFaultWorld = { ...world, struck: (fault, at) => this.happened.struck(fault, at) };
    for (const means of Object.values(REAL_MEANS) as RealMeans<Fault>[]) if (!this.runs.has(means)) this.runs.set(means, means.start(full));
  }

  /** What a fault acts on: the next fault on the same target waits for it to finish. */
  target(fault: Fault): string {
    return meansOf(fault.kind)?.target(fault) ?? `fault:${fault.kind}`;
  }

  /** Strikes one fault on the real processes or clients. */
  strike(fault: Fault): Promise<void> {
    const means = meansOf(fault.kind);
    if (!means) return Promise.reject(new Error(`no real means for fault ${fault.kind}`));
    return this.runs.get(means)!.strike(fault);
  }

  /** The liveness phase: every partition heals, every paused process resumes, every crashed node and redis restarts, clocks are true. */
  async healAll(): Promise<void> {
    // At once, as the simulator heals: one restart does not wait for another's peers to reconnect.
    await Promise.all([...this.runs.values()].map((run) => run.healAll()));
  }
}
