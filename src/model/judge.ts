import { checkHistory, type CheckReport } from './checker.js';
import { parseHistoryFile, type HistoryFile } from './history-file.js';
import type { CheckerSettings, RunPhases } from './history.js';

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
