import { checkHistory, type CheckReport } from './checker.js';
import { parseHistoryFile, type HistoryFile } from './history-file.js';
import type { CheckerSettings, HistoryOp, RunPhases } from './history.js';

/** A recorded history and the checker's verdict on it. */
export interface Judgement extends HistoryFile {
  readonly report: CheckReport;
}

/**
 * Judges a history in the JSON-lines format of `dynoq judge` (README, "Judging your own history"):
 * phases and settings come from its `run` line unless overridden. Throws HistoryFileError on bad input.
 */
export function judgeHistory(text: string, overrides: Partial<RunPhases & CheckerSettings> = {}, file = '<history>'): Judgement {
  const parsed = parseHistoryFile(text, file, overrides);
  return { ...parsed, report: checkHistory(parsed.history, parsed.phases, parsed.settings) };
}

/** Where a history's times count from in messages (`t+N ms`): its first invocation (0 for an empty one). */
export function historyStart(history: readonly HistoryOp[]): number {
  return history.reduce((min, op) => Math.min(min, op.invokedAt), history.length > 0 ? Infinity : 0);
}
