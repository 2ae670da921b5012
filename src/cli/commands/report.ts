import { checkerSettings } from '../../sim/checker-settings.js';
import { checkHistory } from '../../model/checker.js';
import { renderHtmlReport } from '../../report/html-report.js';
import { readTrace } from '../../sim/trace-file.js';
import { SIM_EPOCH, type SimResult } from '../../sim/run.js';
import { EXIT } from '../exit-codes.js';
import { writeOutput } from '../output.js';
import { sha256File } from '../sha256-file.js';

/** `dynoq report TRACE --html out.html`: judge a trace file again and draw it; exit 1 when it violates a property. */
export function reportCommand(file: string, flags: { html: string }): number {
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
