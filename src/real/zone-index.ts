import { RealProcessError } from './real-process-error.js';

/** The index of `zone` among the cluster's zones; a typed error for a zone it does not have. */
export function zoneIndex(zones: readonly string[], zone: string): number {
  const i = zones.indexOf(zone);
  if (i < 0) throw new RealProcessError('unknown-zone', `no zone ${JSON.stringify(zone)} (zones: ${zones.join(', ')})`);
  return i;
}
