import { checkHistory, popsInFlightAtEnd, type CheckReport } from './checker.js';
import { explain, extrasOf, noEndings, tallyEndings, verdictOf, DEFAULT_MAX_UNDETERMINED, type Endings, type ExplainedViolation, type OpExtra, type Verdict } from './endings.js';
import { parseHistoryFile, type FaultSpan, type HistoryFile } from './history-file.js';
import type { CheckerSettings, HistoryOp, RunPhases } from './history.js';
import { groupById } from './message-ops.js';

/** The checker's report on a recorded history, with its verdict, its endings and its findings explained. */
export interface JudgeReport extends CheckReport {
  readonly verdict: Verdict;
  readonly endings: Endings;
  /** Each finding with the faults in effect at its time and its message's extra fields. */
  readonly violations: readonly ExplainedViolation[];
}

/** A recorded history and the checker's verdict on it. */
export interface Judgement extends HistoryFile {
  readonly report: JudgeReport;
}

export interface JudgeOptions {
  /** Above this share of undetermined messages a history with no violation is unknown (default 0.01). */
  readonly maxUndetermined?: number;
}

export type JudgeOverrides = Partial<RunPhases & CheckerSettings>;

/** The judge's report from the checker's, the endings and the faults. */
export function judgeReportOf(report: CheckReport, endings: Endings, faults: readonly FaultSpan[], extrasById: ReadonlyMap<string, readonly OpExtra[]>, options: JudgeOptions): JudgeReport {
  return {
    ...report,
    verdict: verdictOf(report, endings, options.maxUndetermined ?? DEFAULT_MAX_UNDETERMINED),
    endings,
    violations: explain(report.violations, faults, extrasById),
  };
}

/**
 * Judges a history in the JSON-lines format of `dynoq judge` (README, "Judging your own history"):
 * phases and settings come from its `run` line unless overridden. Throws HistoryFileError on bad input.
 * Holds the whole history in memory; `judgeStream` reads it twice as a stream instead, with the same verdicts.
 */
export function judgeHistory(text: string, overrides: JudgeOverrides = {}, file = '<history>', options: JudgeOptions = {}): Judgement {
  const parsed = parseHistoryFile(text, file, overrides);
  const report = checkHistory(parsed.history, parsed.phases, parsed.settings);
  const { byId, pops } = groupById(parsed.history);
  const endings = noEndings();
  endings.inFlight = parsed.inFlight ?? 0;
  const atEnd = popsInFlightAtEnd(pops, parsed.phases.end);
  for (const [id, m] of byId) tallyEndings(m, endings, { id, end: parsed.phases.end, pops: atEnd });
  const violated = new Set(report.violations.map((v) => v.id));
  const extrasById = new Map<string, OpExtra[]>();
  const opsOf = new Map<string, HistoryOp[]>();
  for (const op of parsed.history) {
    if (op.type === 'pop' || !violated.has(op.id)) continue;
    let list = opsOf.get(op.id);
    if (!list) opsOf.set(op.id, (list = []));
    list.push(op);
  }
  for (const [id, ops] of opsOf) extrasById.set(id, extrasOf(ops));
  return { ...parsed, report: judgeReportOf(report, endings, parsed.faults ?? [], extrasById, options) };
}

/** Where a history's times count from in messages (`t+N ms`): its first invocation (0 for an empty one). */
export function historyStart(history: readonly HistoryOp[]): number {
  let min = history.length > 0 ? Infinity : 0;
  for (const op of history) if (op.invokedAt < min) min = op.invokedAt;
  return min;
}
