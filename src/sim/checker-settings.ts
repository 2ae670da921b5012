import type { CheckerSettings } from '../model/history.js';
import type { SimConfig } from './config.js';
import { deliveryBound } from './delivery-bound.js';

/** What the checker is told about a simulated run: the one place its settings come from. */
export function checkerSettings(config: SimConfig): CheckerSettings {
  return { reaperIntervalMs: config.queue.reaperIntervalMs, recoveryBoundMs: config.checker.recoveryBoundMs, deliveryBoundMs: deliveryBound(config) };
}
