import type { TopologyKind } from '../store/topology.js';

/** The name of the node serving `zone`: Dynomite has one node per zone; Redis a primary in the first. */
export function nodeName(kind: TopologyKind, zones: readonly string[], zone: string): string {
  if (kind === 'dynomite') return `node-${zone}`;
  return zone === zones[0] ? `primary-${zone}` : `replica-${zone}`;
}
