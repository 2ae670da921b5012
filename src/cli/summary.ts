import type { ViolationKind } from '../model/checker.js';
import { relativeTimes } from '../report/relative-times.js';
import { SIM_EPOCH, type SimResult } from '../sim/run.js';

const KINDS: ViolationKind[] = ['lost', 'double-pop', 'duplicate', 'early', 'slow-recovery', 'resurrection', 'unexpected'];

/** The human summary of one run. */
export function formatSummary(r: SimResult, title: string): string {
  const c = r.config;
  const rep = r.report;
  const lines = [
    `== ${title}`,
    `seed ${c.seed} · ${c.topology.kind} [${c.topology.zones.join(',')}] · quorum ${c.topology.quorumConsistency} · mode ${c.queue.mode}${c.queue.serverTime ? ' +server-time' : ''}${c.queue.durable ? ` +WAIT ${c.queue.durable.replicas}` : ''} · ${c.faults.length} fault(s)`,
    `pushed ${rep.pushed} · delivered ${rep.delivered} · acked ${rep.acked} · delivery latency p50 ${rep.latency.p50.toFixed(0)} ms, p99 ${rep.latency.p99.toFixed(0)} ms`,
    `properties: at-least-once ${mark(rep.properties.atLeastOnce)} · un-ack recovery ${mark(rep.properties.unackRecovery)} · no double pop ${mark(rep.properties.noDoublePop)}`,
  ];
  for (const kind of KINDS) {
    const n = rep.counts[kind];
    if (n === 0) continue;
    lines.push(`  ${kind}: ${n}${kind === 'duplicate' ? ' (allowed by at-least-once)' : ''}`);
    for (const v of rep.violations.filter((x) => x.kind === kind).slice(0, 3)) {
      lines.push(`    - ${v.id} at t+${(v.t - SIM_EPOCH).toFixed(0)} ms [${v.actors.join(', ')}]: ${relativeTimes(v.detail, SIM_EPOCH)}`);
    }
  }
  lines.push(`trace ${r.traceEvents} events · sha256 ${r.traceHash}`);
  return lines.join('\n');
}

function mark(held: boolean): string {
  return held ? 'held' : 'VIOLATED';
}
