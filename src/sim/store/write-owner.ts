import type { StoreOp } from './store-op.js';

/**
 * The call each client write belongs to, by the op object itself: replicas run a write late (after
 * the reply, after the client moved on to other calls), so "the current call" would blame the wrong one.
 */
const owners = new WeakMap<StoreOp, () => void>();

/** `changed` runs each time a node's data changes running `op` (on any replica, at any time). */
export function watchWrite(op: StoreOp, changed: () => void): void {
  owners.set(op, changed);
}

/** A node's data changed running `op`. */
export function writeChanged(op: StoreOp): void {
  owners.get(op)?.();
}
