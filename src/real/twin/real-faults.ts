import type { Fault, SimConfig } from '../../sim/run/config.js';
import { FAULT_FAMILIES, FAULT_FAMILY_NAMES, familyOf, kindsOf, packageOf, type FaultFamily, type FaultKind, type FaultPackage } from '../../sim/faults/index.js';
import type { RealFamilyRun, RealFaultWorld } from '../../sim/faults/real-means.js';

export type { RealFaultWorld } from '../../sim/faults/real-means.js';

/** The fault kinds a real twin can strike: those of every family with real means. */
export const REAL_FAULT_KINDS: readonly FaultKind[] = FAULT_FAMILY_NAMES.filter((f) => FAULT_FAMILIES[f].real).flatMap(kindsOf);

/** One real run's means, per family that has them: fresh state each run. */
export class RealFaultState {
  private readonly runs = new Map<FaultFamily, RealFamilyRun<Fault>>();

  runOf(family: FaultFamily): RealFamilyRun<Fault> | undefined {
    let run = this.runs.get(family);
    if (!run) {
      const real = (FAULT_FAMILIES[family] as unknown as FaultPackage<Fault>).real;
      if (!real) return undefined;
      run = real.start();
      this.runs.set(family, run);
    }
    return run;
  }

  started(): RealFamilyRun<Fault>[] {
    return [...this.runs.values()];
  }
}

/** Why a configuration cannot run on real processes (none: it can). */
export function realTwinProblems(config: SimConfig): string[] {
  const problems: string[] = [];
  const t = config.topology;
  if (t.kind !== 'primary-replica' && t.kind !== 'dynomite') problems.push(`topology ${t.kind as string} has no real twin (primary-replica and dynomite do)`);
  if (config.network.clientFailover) problems.push('network.clientFailover: the real twin runs the client dynoq ships by default (one node, never moves); a failover client is not built here');
  if (config.network.profile === 'wan') problems.push('network.profile wan: real twins run on loopback (lan); the lag spikes would need a proxy per link, not built');
  for (const f of config.faults) {
    const real = packageOf(f.kind).real;
    if (!real) problems.push(`fault ${f.kind} at ${f.at} ms: no real means built (real faults: ${REAL_FAULT_KINDS.join(', ')})`);
    else {
      const problem = real.problem?.(f, config);
      if (problem) problems.push(problem);
    }
  }
  return problems;
}

/** Strikes one fault on the real processes or clients. */
export function applyRealFault(w: RealFaultWorld, s: RealFaultState, fault: Fault): Promise<void> {
  const run = s.runOf(familyOf(fault.kind));
  if (!run) return Promise.reject(new Error(`no real means for fault ${fault.kind}`));
  return run.strike(w, fault);
}

/** The liveness phase: every family ends what it still has in effect, at once (partitions heal, paused processes resume, crashed nodes and redis restart, clocks are true). */
export async function healRealFaults(w: RealFaultWorld, s: RealFaultState): Promise<void> {
  await Promise.all(s.started().map((run) => run.healAll(w)));
}
