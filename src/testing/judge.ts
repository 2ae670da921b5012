import { readFile } from 'node:fs/promises';
import type { CheckReport } from '../model/checker.js';
import type { CheckerSettings, RunPhases } from '../model/history.js';
import { historyStart, judgeHistory } from '../model/judge.js';
import { relativeTimes } from '../model/relative-times.js';
import { PROPERTIES, PROPERTY_NAMES, VIOLATION_KINDS, type PropertyName } from '../model/properties.js';
import { HarnessFailure } from './failure.js';
import { checkRequired } from './harness-options.js';

export interface JudgeOptions extends Partial<RunPhases & CheckerSettings> {
  /** Properties that must hold (default: every property). */
  readonly require?: readonly PropertyName[];
}

/**
 * Judges a history recorded from your own system (the JSON-lines format `dynoq judge` reads).
 * Resolves with the checker's report when every required property held; rejects with a
 * HarnessFailure naming the first violation otherwise, and with HistoryFileError on bad input.
 */
export async function judge(file: string, options: JudgeOptions = {}): Promise<CheckReport> {
  const { require: asked = PROPERTY_NAMES, ...overrides } = options;
  const required = checkRequired(asked);
  const { report, history } = judgeHistory(await readFile(file, 'utf8'), overrides, file);
  const start = historyStart(history);
  const broken = required.filter((p) => !report.properties[p]);
  if (broken.length > 0) {
    const first = report.violations.find((v) => broken.some((p) => VIOLATION_KINDS[v.kind].breaks === p));
    throw new HarnessFailure(
      `history ${file} violated ${broken.map((p) => PROPERTIES[p].label).join(', ')}${first ? `; first: ${first.kind} of ${first.id} at t+${Math.round(first.t - start)} ms: ${relativeTimes(first.detail, start)}` : ''}`,
      undefined,
      undefined,
      undefined,
      `npx dynoq judge ${file}`,
    );
  }
  return report;
}
