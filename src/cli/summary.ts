import { VIOLATION_KINDS, WORST_FIRST } from '../model/properties.js';
import { deliveryBound } from '../sim/settings/delivery-bound.js';
import { latenessLine, verdictLine } from './verdicts.js';
import { relativeTimes } from '../model/relative-times.js';
import { describeExposure } from '../sim/faults/index.js';
import { SIM_EPOCH, type SimResult } from '../sim/run/run.js';
import type { CheckReport } from '../model/checker.js';
import type { SimConfig } from '../sim/run/config.js';
import type { RealResult } from '../real/twin/run-real.js';

/** The human summary of one run, in messages (not events), with every finding kind and fault. */
export function formatSummary(r: SimResult, title: string): string {
  const lines = verdictLines(r, title);
  for (const f of r.faults) {
    lines.push(`  fault ${f.fault.kind} at t+${(f.t - SIM_EPOCH).toFixed(0)} ms: ${describeExposure(f.exposure.counts)}`);
  }
  if (r.replicas) lines.push(replicaLine(r.replicas));
  lines.push(`trace ${r.traceEvents} events · sha256 ${r.traceHash}`);
  return lines.join('\n');
}

/** The same summary for a real twin: its faults as they struck the processes, its wall time, no trace. */
export function formatRealSummary(r: RealResult, title: string): string {
  const lines = verdictLines(r, title, r.history[0]?.invokedAt ?? 0);
  for (const f of r.faults) lines.push(`  fault ${f.fault.kind} at +${f.at} ms${f.error ? ` FAILED to strike: ${f.error}` : ''}`);
  if (r.replicas) lines.push(replicaLine(r.replicas));
  if (r.peerLinks) lines.push(`peer links: ${r.peerLinks === 'configured' ? "the configuration's latency and replication lag held in the link proxies" : 'loopback, as they are'}`);
  lines.push(`real twin: ${(r.realMs / 1_000).toFixed(1)} s on real processes (the seed fixes the workload's choices and the faults, not the timing: no trace hash)`);
  return lines.join('\n');
}

function replicaLine(r: { readonly equal: boolean; readonly differingKeys: readonly string[] }): string {
  return r.equal
    ? 'replicas: every key equal once replication drained'
    : `replicas DIVERGED: ${r.differingKeys.length} key(s) differ once replication drained (${r.differingKeys.slice(0, 4).join(', ')})`;
}

function verdictLines(r: { readonly config: SimConfig; readonly report: CheckReport }, title: string, epoch = SIM_EPOCH): string[] {
  const c = r.config;
  const rep = r.report;
  const lines = [
    `== ${title}`,
    `seed ${c.seed} · workload ${c.workload.profile} · ${c.topology.kind} [${c.topology.zones.join(',')}] · quorum ${c.topology.quorumConsistency} · mode ${c.queue.mode}${c.queue.serverTime ? ' +server-time' : ''}${c.queue.durable ? ` +WAIT ${c.queue.durable.replicas}` : ''} · ${c.workload.consumers} consumers · ${c.faults.length} fault(s)`,
    `messages: ${rep.pushed} pushed (ok) · ${rep.delivered} delivered (${rep.deliveries} deliveries) · ${rep.acked} acked (ok) · ${rep.unknownOps} operation(s) with unknown outcome`,
    `delivery latency p50 ${rep.latency.p50.toFixed(0)} ms, p99 ${rep.latency.p99.toFixed(0)} ms`,
    latenessLine(rep, deliveryBound(c)),
    verdictLine(rep),
  ];
  for (const kind of WORST_FIRST) {
    const n = rep.messagesAffected[kind];
    if (n === 0) continue;
    lines.push(`  ${VIOLATION_KINDS[kind].label}: ${n} message(s)${rep.counts[kind] > n ? ` (${rep.counts[kind]} findings)` : ''}`);
    for (const v of rep.violations.filter((x) => x.kind === kind).slice(0, 3)) {
      lines.push(`    - ${v.id} at t+${(v.t - epoch).toFixed(0)} ms [${v.processes.join(', ')}]: ${relativeTimes(v.detail, epoch)}`);
    }
  }
  return lines;
}
