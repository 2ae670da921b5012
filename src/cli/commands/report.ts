import { readFileSync } from 'node:fs';
import { OP_TYPES } from '../../model/history.js';
import { judgeHistory } from '../../model/judge.js';
import { checkerSettings } from '../../sim/settings/checker-settings.js';
import { checkHistory } from '../../model/checker.js';
import { renderHtmlReport } from '../../report/html-report.js';
import { readTrace } from '../../sim/run/trace-file.js';
import { SIM_EPOCH, type SimResult } from '../../sim/run/run.js';
import { EXIT } from '../exit-codes.js';
import { writeOutput } from '../output.js';
import { sha256File } from '../sha256-file.js';

/** Whether a file is a history in the `dynoq judge` format (its first line a `run` line or an operation), not a trace. */
function isHistory(text: string): boolean {
  const first = text.slice(0, text.indexOf('\n') >>> 0).trim();
  try {
    const type = (JSON.parse(first) as { type?: unknown }).type;
    return type === 'run' || (OP_TYPES as readonly unknown[]).includes(type);
  } catch {
    return false;
  }
}

/** A judged history drawn on the same timeline: lanes per process, axis and plots; no store lanes. */
function reportHistory(file: string, text: string, html: string): number {
  const { history, phases, settings, report, faults } = judgeHistory(text, {}, file);
  let start = Infinity;
  for (const o of history) if (o.invokedAt < start) start = o.invokedAt;
  const processes = new Set(history.map((o) => o.process)).size;
  writeOutput(
    html,
    renderHtmlReport({
      title: `history ${file}`,
      summary: `judged history · ${history.length} operations · ${processes} processes · reaper ${settings.reaperIntervalMs} ms · recovery bound ${settings.recoveryBoundMs} ms${settings.deliveryBoundMs !== undefined ? ` · delivery bound ${settings.deliveryBoundMs} ms` : ''}`,
      history,
      faults: [],
      // The history's fault lines, on their target's lane when it is one of its processes.
      bands: (faults ?? []).map((f) => ({
        kind: f.kind,
        lane: f.target !== undefined && history.some((o) => o.process === f.target) ? f.target : null,
        from: f.from,
        to: Number.isFinite(f.to) ? f.to : phases.end,
        label: `${f.kind}${f.target !== undefined ? ` ${f.target}` : ''}`,
      })),
      report,
      start: Math.min(start, phases.livenessStart),
      livenessStart: phases.livenessStart,
      end: phases.end,
      traceHash: sha256File(file),
    }),
  );
  console.log(`report written to ${html} (${history.length} history operations, ${report.violations.filter((v) => v.kind !== 'duplicate').length} violations)`);
  return Object.values(report.properties).every(Boolean) ? EXIT.ok : EXIT.violated;
}

/**
 * `dynoq report FILE --html out.html`: judge a trace file (or a history in the `dynoq judge` format)
 * again and draw it; exit 1 when it violates a property.
 */
export function reportCommand(file: string, flags: { html: string }): number {
  let text: string | undefined;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    // readTrace says why, as a TraceFileError
  }
  if (text !== undefined && isHistory(text)) return reportHistory(file, text, flags.html);
  const t = readTrace(file);
  const report = checkHistory(t.history, { livenessStart: t.livenessStart, end: t.end }, checkerSettings(t.config));
  writeOutput(
    flags.html,
    renderHtmlReport({ title: `trace ${file}`, config: t.config, history: t.history, faults: t.faults, report, start: t.start, livenessStart: t.livenessStart, end: t.end, traceHash: sha256File(file) }),
  );
  console.log(`report written to ${flags.html} (${t.history.length} history events, ${report.violations.filter((v) => v.kind !== 'duplicate').length} violations)`);
  // The verdict's exit code, as judge gives for the same history (README: 1 = a property was violated).
  return Object.values(report.properties).every(Boolean) ? EXIT.ok : EXIT.violated;
}

/** The same picture straight from a run (dynoq sim --html). */
export function writeRunReport(result: SimResult, title: string, path: string): void {
  const faults = result.config.faults.map((fault) => ({ t: SIM_EPOCH + fault.at, fault }));
  writeOutput(
    path,
    renderHtmlReport({
      title,
      config: result.config,
      history: result.history,
      faults,
      report: result.report,
      start: SIM_EPOCH,
      livenessStart: result.livenessStart,
      end: SIM_EPOCH + result.simulatedMs,
      traceHash: result.traceHash,
    }),
  );
}
