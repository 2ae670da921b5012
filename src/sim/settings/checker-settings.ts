import type { CheckerSettings } from '../../model/history.js';
import type { SimSettings } from './settings.js';
import { deliveryBound } from './delivery-bound.js';

/** What the checker is told about a simulated run: the one place its settings come from. */
export function checkerSettings(config: SimSettings): CheckerSettings {
  return { reaperIntervalMs: config.queue.reaperIntervalMs, recoveryBoundMs: config.checker.recoveryBoundMs, deliveryBoundMs: deliveryBound(config) };
}
