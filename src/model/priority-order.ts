import type { DeliverOp } from './history.js';
import type { FreeInterval } from './free-intervals.js';

interface InversionFinding {
  readonly id: string;
  readonly t: number;
  readonly processes: readonly string[];
  readonly detail: string;
}

interface PriorityJudgement {
  readonly findings: InversionFinding[];
  /** Whether some pop took a message while another priority of its shard was free and due. */
  readonly exercised: boolean;
}

/**
 * Priority inversion (docs/CHECKER.md §3): a delivery by the schedule of message a while another message b of
 * its shard, strictly more urgent, had been free and due since at least `boundMs` before a's pop
 * began and stayed free from when a's pop began until it returned (b's next delivery came from a later pop). `boundMs`
 * is the delivery bound: a message due a moment ago may not have reached the replica a pop reads yet.
 */
export function judgePriority(deliveries: readonly DeliverOp[], priorityOf: (d: DeliverOp) => number, free: readonly FreeInterval[], boundMs: number): PriorityJudgement {
  const findings: InversionFinding[] = [];
  let exercised = false;
  for (const a of deliveries) {
    if ((a.via ?? 'schedule') !== 'schedule') continue;
    const pa = priorityOf(a);
    let worst: FreeInterval | undefined;
    for (const b of free) {
      if (b.id === a.id || b.priority === pa) continue;
      // Free and due for longer than B (strictly, as late counts it): exactly B is within the bound.
      // Still free when a's pop began, and until it returned: a pop that took no whole millisecond (a
      // real one on loopback) and took b and a together did not pass b over.
      if (b.from >= a.invokedAt - boundMs || b.to < a.completedAt || b.to <= a.invokedAt) continue;
      exercised = true;
      if (b.priority < pa && (!worst || b.priority < worst.priority || (b.priority === worst.priority && b.from < worst.from))) worst = b;
    }
    if (worst) {
      findings.push({
        id: a.id,
        t: a.completedAt,
        processes: [a.process],
        detail: `priority ${pa} popped by ${a.process} while ${worst.id} (priority ${worst.priority}) was free and due since ${worst.from}`,
      });
    }
  }
  return { findings, exercised };
}
