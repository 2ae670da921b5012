import { readFileSync } from 'node:fs';
import type { CheckReport } from '../../model/checker.js';
import { historyStart, judgeHistory } from '../../model/judge.js';
import { relativeTimes } from '../../report/relative-times.js';
import { PROPERTY_NAMES, VIOLATION_KIND_NAMES, VIOLATION_KINDS } from '../../model/properties.js';
import { latenessLine, verdictLine } from '../verdicts.js';
import { CliError } from '../cli-error.js';
import { emitJson } from '../output.js';

export interface JudgeFlags {
  livenessStart?: number;
  end?: number;
  reaperInterval?: number;
  recoveryBound?: number;
  deliveryBound?: number;
  json?: boolean;
}

/** `start`: where the times count from (the history's first invocation); `boundMs`: the delivery bound judged with. */
export function formatJudgement(r: CheckReport, file: string, start = 0, boundMs?: number): string {
  const lines = [
    `== ${file}`,
    `messages: ${r.pushed} pushed (ok) · ${r.delivered} delivered (${r.deliveries} deliveries) · ${r.acked} acked (ok) · ${r.unknownOps} operation(s) with unknown outcome`,
    latenessLine(r, boundMs),
    verdictLine(r),
  ];
  for (const kind of VIOLATION_KIND_NAMES) {
    if (r.messagesAffected[kind] === 0) continue;
    lines.push(`  ${VIOLATION_KINDS[kind].label}: ${r.messagesAffected[kind]} message(s)`);
    for (const v of r.violations.filter((x) => x.kind === kind).slice(0, 5)) lines.push(`    - ${v.id} at t+${Math.round(v.t - start)} ms [${v.processes.join(', ')}]: ${relativeTimes(v.detail, start)}`);
  }
  return lines.join('\n');
}

/** `dynoq judge FILE`: the checker on a recorded history. Exit 0 all held, 1 a property violated. */
export function judgeCommand(file: string, flags: JudgeFlags): number {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new CliError(`cannot read ${file}: ${err instanceof Error ? err.message : String(err)}`);
  }
  const h = judgeHistory(text, {
    ...(flags.livenessStart !== undefined ? { livenessStart: flags.livenessStart } : {}),
    ...(flags.end !== undefined ? { end: flags.end } : {}),
    ...(flags.reaperInterval !== undefined ? { reaperIntervalMs: flags.reaperInterval } : {}),
    ...(flags.recoveryBound !== undefined ? { recoveryBoundMs: flags.recoveryBound } : {}),
    ...(flags.deliveryBound !== undefined ? { deliveryBoundMs: flags.deliveryBound } : {}),
  }, file);
  const report = h.report;
  if (flags.json) emitJson({ file, phases: h.phases, settings: h.settings, report });
  else console.log(formatJudgement(report, file, historyStart(h.history), h.settings.deliveryBoundMs));
  return PROPERTY_NAMES.every((p) => report.properties[p]) ? 0 : 1;
}
