import { closeSync, openSync, readSync } from 'node:fs';
import { OP_TYPES } from '../../model/history.js';
import { VIOLATION_KINDS } from '../../model/properties.js';
import { judgeStream, messageOps } from '../../model/stream-judge.js';
import { HistoryDrawing } from '../../report/history-drawing.js';
import { checkerSettings } from '../../sim/settings/checker-settings.js';
import { checkHistory } from '../../model/checker.js';
import { escapeHtml, htmlReportPieces, renderHtmlReport } from '../../report/html-report.js';
import { readTrace } from '../../sim/run/trace-file.js';
import { SIM_EPOCH, type SimResult } from '../../sim/run/run.js';
import { EXIT } from '../exit-codes.js';
import { fileLines } from '../line-reader.js';
import { prepareOutput, writeOutput, writeOutputPieces } from '../output.js';
import { regularFileOrThrow } from '../regular-file.js';
import { sha256File } from '../sha256-file.js';

/** Whether a file is a history in the `dynoq judge` format (its first line a `run` line or an operation), not a trace: only its first line is read. */
function isHistory(file: string): boolean {
  let first: string;
  try {
    const fd = openSync(file, 'r');
    try {
      const chunk = Buffer.alloc(1 << 16);
      const n = readSync(fd, chunk);
      const text = chunk.subarray(0, n).toString('utf8');
      first = text.slice(0, text.indexOf('\n') >>> 0).trim();
    } finally {
      closeSync(fd);
    }
  } catch {
    return false; // readTrace says why, as a TraceFileError
  }
  try {
    const type = (JSON.parse(first) as { type?: unknown }).type;
    return type === 'run' || (OP_TYPES as readonly unknown[]).includes(type);
  } catch {
    // A first line longer than 64 KiB, or not JSON: a trace's first line is short, a history's is read (and judged) as one.
    return first.startsWith('{"type":') || first.startsWith('{ "type":');
  }
}

/**
 * A judged history drawn on the same timeline: lanes per process, axis and plots; no store lanes.
 * Read as a stream, as `dynoq judge` reads it: judged once (the picture gathered as each message is
 * judged), then, only when a per-shard judgement found a message the picture did not keep, read once
 * more for those messages. The page is written in pieces.
 */
async function reportHistory(file: string, html: string): Promise<number> {
  prepareOutput(html);
  const drawing = new HistoryDrawing();
  const h = await judgeStream(fileLines(file), file, {}, {}, drawing);
  const missing = new Set(h.report.violations.filter((v) => VIOLATION_KINDS[v.kind].breaks !== null && !drawing.isDrawn(v.id)).map((v) => v.id));
  if (missing.size > 0) for (const [id, ops] of await messageOps(fileLines(file), file, missing, h.phases.end)) drawing.addViolating(id, ops);
  const { settings, report } = h;
  const page = drawing.page({
    title: `history ${file}`,
    summaryHtml: escapeHtml(`judged history · ${drawing.operations} operations · ${drawing.processCount} processes · reaper ${settings.reaperIntervalMs} ms · recovery bound ${settings.recoveryBoundMs} ms${settings.deliveryBoundMs !== undefined ? ` · delivery bound ${settings.deliveryBoundMs} ms` : ''}`),
    traceHash: sha256File(file),
    report,
    faults: h.faults ?? [],
  });
  writeOutputPieces(html, htmlReportPieces(page));
  console.log(`report written to ${html} (${drawing.operations} history operations, ${report.violations.filter((v) => v.kind !== 'duplicate').length} violations)`);
  return Object.values(report.properties).every(Boolean) ? EXIT.ok : EXIT.violated;
}

/**
 * `dynoq report FILE --html out.html`: judge a trace file (or a history in the `dynoq judge` format)
 * again and draw it; exit 1 when it violates a property.
 */
export async function reportCommand(file: string, flags: { html: string }): Promise<number> {
  regularFileOrThrow(file);
  if (isHistory(file)) return reportHistory(file, flags.html);
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
