/** `dynoq/model` — histories, the history checker and the sequential reference models. Pure, no I/O. */
export { checkHistory, FAILURE_KINDS } from '../model/checker.js';
export type { CheckReport, Violation, ViolationKind } from '../model/checker.js';
export type { HistoryEvent, RunPhases, CheckerSettings } from '../model/history.js';
export { AtomicModel } from '../model/atomic-model.js';
export { LegacyModel } from '../model/legacy-model.js';
export type { QueueModel, ModelMessage, ModelLeased } from '../model/queue-model.js';
