import { statSync } from 'node:fs';
import type { FaultSpan } from '../../model/history-file.js';
import type { JudgeReport } from '../../model/judge.js';
import { VIOLATION_KINDS, WORST_FIRST } from '../../model/properties.js';
import type { StreamJudgement } from '../../model/stream-judge.js';
import { relativeTimes } from '../../model/relative-times.js';
import { latenessLine, verdictLine } from '../verdicts.js';
import { CliError } from '../cli-error.js';
import { EXIT } from '../exit-codes.js';
import { judgeInThread } from '../judge-in-thread.js';
import { emitJson } from '../output.js';
import { regularFileOrThrow } from '../regular-file.js';

interface JudgeFlags {
  livenessStart?: number;
  end?: number;
  reaperInterval?: number;
  recoveryBound?: number;
  deliveryBound?: number;
  maxUndetermined?: number;
  json?: boolean;
}

const VERDICT_TEXT = {
  valid: 'VALID: every property held',
  invalid: 'INVALID: a property was violated',
  unknown: 'UNKNOWN: no property was violated, but too many messages have an outcome that rests on unknown operations to tell',
} as const;

function faultText(f: FaultSpan, at: (t: number) => string): string {
  const detail = f.detail === undefined ? '' : `: ${typeof f.detail === 'string' ? f.detail : JSON.stringify(f.detail)}`;
  return `${f.kind}${f.target !== undefined ? ` on ${f.target}` : ''} (${at(f.from)}–${Number.isFinite(f.to) ? at(f.to) : 'end'})${detail}`;
}

/** `start`: where the times count from (the history's first invocation); `boundMs`: the delivery bound judged with. */
export function formatJudgement(r: JudgeReport, file: string, start = 0, boundMs?: number): string {
  const at = relativeTo(start);
  const e = r.endings;
  const lines = [
    `== ${file}`,
    `messages: ${r.pushed} pushed (ok) · ${r.delivered} delivered (${r.deliveries} deliveries) · ${r.acked} acked (ok) · ${r.unknownOps} operation(s) with unknown outcome`,
    `endings: ${e.inFlight} call(s) in flight at the end (unknown) · ${e.recovered} recovered (an unknown push later delivered) · ${e.undetermined} of ${e.messages} message(s) undetermined (processing rests on unknown operations only)`,
    latenessLine(r, boundMs),
    verdictLine(r),
  ];
  for (const kind of WORST_FIRST) {
    if (r.messagesAffected[kind] === 0) continue;
    lines.push(`  ${VIOLATION_KINDS[kind].label}: ${r.messagesAffected[kind]} message(s)`);
    for (const v of r.violations.filter((x) => x.kind === kind).slice(0, 5)) {
      lines.push(`    - ${v.id} at ${at(v.t)} [${v.processes.join(', ')}]: ${relativeTimes(v.detail, start)}`);
      for (const f of v.faults ?? []) lines.push(`        why ← fault ${faultText(f, at)}`);
      for (const x of (v.extras ?? []).slice(0, 3)) lines.push(`        ${x.type} by ${x.process} at ${at(x.invokedAt)}: ${JSON.stringify(x.extra)}`);
    }
  }
  lines.push(`verdict: ${VERDICT_TEXT[r.verdict]}`);
  return lines.join('\n');
}

/** `t+N ms` from `start`, as the text output prints a time. */
const relativeTo = (start: number) => (t: number) => `t+${Math.round(t - start)} ms`;

/** A fault's times, raw and relative (an open fault's `to` is Infinity: null in JSON, `end` relative). */
function faultJson(f: FaultSpan, at: (t: number) => string): FaultSpan & { fromRelative: string; toRelative: string } {
  return { ...f, fromRelative: at(f.from), toRelative: Number.isFinite(f.to) ? at(f.to) : 'end' };
}

/**
 * `judge --json`: the judgement with every time twice — raw, on the recorder's clock (a number), and
 * relative in a field named after it with `Relative` (`t+N ms` from `start`, the history's first
 * invocation, as the text output prints it; a finding's `detail` likewise). A finding's `faults` are
 * copies of entries of the top-level `faults`, which carry their relative times.
 */
export function judgementJson(file: string, h: StreamJudgement): unknown {
  const at = relativeTo(h.start);
  const r = h.report;
  return {
    file,
    start: h.start,
    phases: {
      ...h.phases,
      livenessStartRelative: at(h.phases.livenessStart),
      endRelative: at(h.phases.end),
      ...(h.phases.stopped ? { stopped: h.phases.stopped.map((c) => ({ ...c, atRelative: at(c.at) })) } : {}),
    },
    settings: h.settings,
    faults: (h.faults ?? []).map((f) => faultJson(f, at)),
    verdict: r.verdict,
    peak: h.peak,
    report: {
      ...r,
      violations: r.violations.map((v) => ({
        ...v,
        tRelative: at(v.t),
        detailRelative: relativeTimes(v.detail, h.start),
        ...(v.extras ? { extras: v.extras.map((x) => ({ ...x, invokedAtRelative: at(x.invokedAt) })) } : {}),
      })),
    },
  };
}

/**
 * `dynoq judge FILE`: the checker on a recorded history, read as a stream. Exit 0 valid, 1 invalid
 * (a property violated), 4 unknown (nothing violated, too much unknown to tell); 2 bad input.
 */
export async function judgeCommand(file: string, flags: JudgeFlags): Promise<number> {
  regularFileOrThrow(file);
  try {
    statSync(file);
  } catch (err) {
    throw new CliError(`cannot read ${file}: ${err instanceof Error ? err.message : String(err)}`);
  }
  const h = await judgeInThread({
    file,
    overrides: {
      ...(flags.livenessStart !== undefined ? { livenessStart: flags.livenessStart } : {}),
      ...(flags.end !== undefined ? { end: flags.end } : {}),
      ...(flags.reaperInterval !== undefined ? { reaperIntervalMs: flags.reaperInterval } : {}),
      ...(flags.recoveryBound !== undefined ? { recoveryBoundMs: flags.recoveryBound } : {}),
      ...(flags.deliveryBound !== undefined ? { deliveryBoundMs: flags.deliveryBound } : {}),
    },
    options: flags.maxUndetermined !== undefined ? { maxUndetermined: flags.maxUndetermined } : {},
  });
  const report = h.report;
  if (flags.json) emitJson(judgementJson(file, h));
  else console.log(formatJudgement(report, file, h.start, h.settings.deliveryBoundMs));
  return report.verdict === 'valid' ? EXIT.ok : report.verdict === 'invalid' ? EXIT.violated : EXIT.unknown;
}
