/** `dynoq/model` — histories, the history checker, the property table and the sequential reference models. Pure, no I/O. */
export { checkHistory } from '../model/checker.js';
export type { CheckReport, Violation } from '../model/checker.js';
export { judgeHistory } from '../model/judge.js';
export type { Judgement, JudgeReport, JudgeOptions } from '../model/judge.js';
export { judgeStream } from '../model/stream-judge.js';
export type { LineBytes, LineSource, StreamJudgement, StreamObserver } from '../model/stream-judge.js';
export { DEFAULT_MAX_UNDETERMINED } from '../model/endings.js';
export type { Endings, Verdict, ExplainedViolation, OpExtra } from '../model/endings.js';
export { parseHistoryFile, formatHistoryFile, historyJsonSchema, HistoryFileError, DEFAULT_JUDGE_SETTINGS } from '../model/history-file.js';
export type { HistoryFile, FaultSpan } from '../model/history-file.js';
export { PROPERTIES, PROPERTY_NAMES, VIOLATION_KINDS, VIOLATION_KIND_NAMES, FAILURE_KINDS, kindsBreaking, WORST_FIRST, PROPERTIES_WORST_FIRST, worstFirst, worstFinding } from '../model/properties.js';
export type { PropertyName, ViolationKind } from '../model/properties.js';
export { OUTCOMES } from '../model/history.js';
export type { HistoryOp, PushOp, DeliverOp, AckOp, ExtendOp, RemoveOp, PopOp, OpType, Outcome, RunPhases, CheckerSettings } from '../model/history.js';
export { AtomicModel } from '../model/reference/atomic-model.js';
export { LegacyModel } from '../model/reference/legacy-model.js';
export type { QueueModel, ModelMessage, ModelLeased } from '../model/reference/queue-model.js';
