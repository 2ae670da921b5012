import type { SimConfig } from './config.js';
import { faultScheduleProblems } from '../faults/index.js';

/**
 * Set-ups that parse but cannot be run as meant: every problem is one line naming the field. A zone
 * with no consumer is refused because its shard would never be drained — a "loss" that says nothing
 * about the queue.
 */
export function setupProblems(config: SimConfig): string[] {
  const problems: string[] = [];
  const { zones } = config.topology;
  const repeated = zones.filter((z, i) => zones.indexOf(z) !== i);
  if (repeated.length > 0) problems.push(`topology.zones: ${[...new Set(repeated)].map((z) => JSON.stringify(z)).join(', ')} named twice`);
  if (config.workload.consumers < zones.length) {
    const idle = zones.slice(config.workload.consumers);
    problems.push(
      `workload.consumers: ${config.workload.consumers} consumer(s) for ${zones.length} zones leaves ${idle.join(', ')} with no consumer (consumer i runs in zone i mod ${zones.length}); give at least ${zones.length}`,
    );
  }
  const durable = config.queue.durable;
  if (durable && config.topology.kind === 'primary-replica' && durable.replicas > zones.length - 1) {
    problems.push(`queue.durable.replicas: ${durable.replicas} but a primary with ${zones.length} zones has ${zones.length - 1} replica(s)`);
  }
  if (config.topology.fullSyncDelayMs !== undefined && config.topology.kind !== 'primary-replica') {
    problems.push('topology.fullSyncDelayMs: how long a Redis primary waits before resynchronising a replica in full; this topology is dynomite (no primary)');
  }
  if (config.topology.keepEmptyPrimaryDown && config.topology.kind !== 'primary-replica') {
    problems.push('topology.keepEmptyPrimaryDown: a supervisor rule about a primary; this topology is dynomite (every node takes writes)');
  }
  for (const [i, h] of (config.phases.livenessHeals ?? []).entries()) {
    const where = `phases.livenessHeals.${i}`;
    if (!zones.includes(h.zone)) problems.push(`${where}: no zone ${JSON.stringify(h.zone)}; zones are ${zones.join(', ')}`);
    if (h.at < config.phases.safetyMs) problems.push(`${where}: at ${h.at} ms is inside the safety phase (${config.phases.safetyMs} ms); a heal there is a fault of the schedule`);
    if (h.process === 'backend' && config.topology.kind !== 'dynomite') problems.push(`${where}: a backend is the redis behind a Dynomite node; this topology is ${config.topology.kind}`);
  }
  return problems;
}

/** Everything wrong with a parsed configuration: its set-up, then its fault schedule. */
export function configProblems(config: SimConfig): string[] {
  return [...setupProblems(config), ...faultScheduleProblems(config)];
}
