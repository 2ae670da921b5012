import type { RealCluster } from '../../cluster.js';
import { until } from '../../processes/until.js';

/** How long a supervisor waits for Sentinel to name another primary before it starts the node anyway. */
export const PROMOTION_WAIT_MS = 30_000;

/**
 * Waits until Sentinel names a primary other than `zone`, or `done()` says the wait is moot (another
 * start is under way): true then, false after PROMOTION_WAIT_MS. What the simulator's liveness heal
 * waits for before it starts a killed primary (its promotion).
 */
export function anotherPrimaryNamed(cluster: RealCluster, zone: string, done: () => boolean = () => false): Promise<boolean> {
  return until(`Sentinel naming a primary other than ${zone}`, PROMOTION_WAIT_MS, async () => {
    if (done()) return true;
    const primary = await cluster.primaryZone();
    return primary !== null && primary !== zone;
  }, 100).then(() => true, () => false);
}
