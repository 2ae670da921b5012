import type { CheckReport } from '../model/checker.js';
import { PROPERTIES, PROPERTY_NAMES } from '../model/properties.js';

/**
 * The verdict line: each property held, VIOLATED, or not exercised (held, but nothing in the history
 * could have broken it: no evidence either way, docs/CHECKER.md §5).
 */
export function verdictLine(r: CheckReport): string {
  const verdict = (p: (typeof PROPERTY_NAMES)[number]) => (!r.properties[p] ? 'VIOLATED' : r.exercised[p] ? 'held' : 'not exercised');
  return `properties: ${PROPERTY_NAMES.map((p) => `${PROPERTIES[p].label} ${verdict(p)}`).join(' · ')}`;
}

/** The lateness figures (docs/CHECKER.md §2.4), or why there are none. */
export function latenessLine(r: CheckReport, boundMs: number | undefined): string {
  if (boundMs === undefined) return 'lateness: not judged (no delivery bound: pass --delivery-bound MS or deliveryBoundMs on the run line)';
  if (r.lateness.count === 0) return `lateness: no delivery by the schedule with its shard known (bound B ${boundMs} ms)`;
  const f = (x: number) => x.toFixed(0);
  return `lateness p50 ${f(r.lateness.p50)} ms, p99 ${f(r.lateness.p99)} ms, max ${f(r.lateness.max)} ms over ${r.lateness.count} deliveries (bound B ${boundMs} ms)`;
}
