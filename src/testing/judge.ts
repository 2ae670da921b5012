import { readFile } from 'node:fs/promises';
import type { CheckReport } from '../model/checker.js';
import type { CheckerSettings, RunPhases } from '../model/history.js';
import { historyStart, judgeHistory } from '../model/judge.js';
import { PROPERTIES, PROPERTIES_WORST_FIRST, PROPERTY_NAMES, type PropertyName } from '../model/properties.js';
import { HarnessFailure, worstClause } from './failure.js';
import { checkRequired } from './harness-options.js';

export interface JudgeOptions extends Partial<RunPhases & CheckerSettings> {
  /** Properties that must hold (default: every property). */
  readonly require?: readonly PropertyName[];
}

/**
 * Judges a history recorded from your own system (the JSON-lines format `dynoq judge` reads).
 * Resolves with the checker's report when every required property held; rejects with a
 * HarnessFailure naming the worst violation otherwise (WORST_FIRST), and with HistoryFileError on bad input.
 */
export async function judge(file: string, options: JudgeOptions = {}): Promise<CheckReport> {
  const { require: asked = PROPERTY_NAMES, ...overrides } = options;
  const required = checkRequired(asked);
  const { report, history } = judgeHistory(await readFile(file, 'utf8'), overrides, file);
  const start = historyStart(history);
  const broken = PROPERTIES_WORST_FIRST.filter((p) => required.includes(p) && !report.properties[p]);
  if (broken.length > 0) {
    throw new HarnessFailure(
      `history ${file} violated ${broken.map((p) => PROPERTIES[p].label).join(', ')}${worstClause(report.violations, broken, start)}`,
      undefined,
      undefined,
      undefined,
      `npx dynoq judge ${file}`,
    );
  }
  return report;
}
