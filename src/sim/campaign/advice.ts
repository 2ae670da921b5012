import { VIOLATION_KINDS, type PropertyName } from '../../model/properties.js';
import { FAULT_FAMILIES, FAULT_FAMILY_NAMES } from '../faults/index.js';
import type { Mechanism } from './mechanisms.js';

/**
 * What a user can do about a mechanism: by the fault family behind it (each family's own advice) and
 * the property it breaks. The mechanisms themselves are classified by code.
 */
type PropertyAdvice = Readonly<Partial<Record<PropertyName, string>>>;

/** Causes that are not a family, and what helps against each. */
const CLOCK_OF_A_NODE: PropertyAdvice = {
  deliveredPromptly: 'a node clock that runs behind holds due messages back while consumers wait: keep node clocks in sync.',
  noDoublePop: 'under serverTime the store\'s clock sets every deadline: a node clock that jumps ahead (or a promoted replica whose clock runs ahead) expires leases early. Keep node clocks in sync (NTP with slewing, no steps) and leases well above the worst skew.',
  unackRecovery: 'a node clock that runs behind re-queues expired leases late: keep node clocks in sync.',
  onTime: 'a node clock that runs ahead releases delayed messages early: keep node clocks in sync.',
};
const NO_FAULT: PropertyAdvice = {
  priorityOrder: 'the mode orders by score, not priority first (legacy: now + delay + priority/100, so priority decides only within one millisecond): use atomic mode, which orders every due message by priority, then push order.',
  deliveredPromptly: 'due messages waited while consumers polled without a fault: check the poll interval and, on Dynomite, settleMs; legacy prefetches only the first ids of its replica, which a stale head can block.',
  onTime: 'a message delivered before its due time without a fault: a bug in the mode.',
  atLeastOnce: 'the queue itself dropped a message: this is a bug in the mode, not the environment.',
  unackRecovery: 'a lease that nobody re-queued in time: check the reaper interval against the bound.',
};

/**
 * Matched in this order against the start of a mechanism's cause: the specific causes come first
 * (a node's clock before the clock family, whose advice is about client clocks).
 */
const ADVICE: readonly (readonly [string, PropertyAdvice | undefined])[] = [
  ['clock of a node', CLOCK_OF_A_NODE],
  ...FAULT_FAMILY_NAMES.map((f) => [f, FAULT_FAMILIES[f].advice] as const),
  ['no fault', NO_FAULT],
];

/** Whether a cause starts with `name` as a whole word (process-crash is not process-crash-failover). */
const namedFirst = (cause: string, name: string): boolean => cause.startsWith(name) && !/[\w-]/.test(cause.charAt(name.length));

/** Advice for a mechanism key (`kind ← cause`), from the first family named in its cause. */
function adviceFor(property: PropertyName, cause: string): string | null {
  const entry = ADVICE.find(([c]) => namedFirst(cause, c));
  return entry?.[1]?.[property] ?? null;
}

/** Advice for a mechanism: against the property its kind breaks, from its cause. */
export function adviceForMechanism(m: Mechanism): string | null {
  const property = VIOLATION_KINDS[m.kind].breaks;
  return property ? adviceFor(property, m.cause) : null;
}
