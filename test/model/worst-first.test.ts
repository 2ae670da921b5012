import { describe, expect, it } from 'vitest';
import { checkHistory } from '../../src/model/checker.js';
import type { HistoryOp } from '../../src/model/history.js';
import { judgeHistory } from '../../src/model/judge.js';
import { PROPERTIES_WORST_FIRST, VIOLATION_KIND_NAMES, VIOLATION_KINDS, WORST_FIRST, worstFinding } from '../../src/model/properties.js';
import { formatJudgement } from '../../src/cli/commands/judge.js';
import { renderHtmlReport } from '../../src/report/html-report.js';
import { mechanismsWorstFirst } from '../../src/sim/campaign/mechanisms.js';
import { formatSummary } from '../../src/cli/summary.js';
import { parseSimConfig } from '../../src/sim/run/config.js';
import type { SimResult } from '../../src/sim/run/run.js';
import { worstClause } from '../../src/testing/failure.js';

/**
 * One history with findings of several kinds, the least severe first in time: m-late waits while a pop
 * waits (late at ~400), m-early is delivered before its due time (at 50), m-lost is never delivered
 * (lost at the end). In time order the first finding is early, then late; worst first it is the loss.
 */
const history: HistoryOp[] = [
  { type: 'push', process: 'p', id: 'm-early', invokedAt: 0, completedAt: 1, outcome: 'ok', delayMs: 1_000, shard: 's', priority: 0 },
  { type: 'deliver', process: 'c1', id: 'm-early', invokedAt: 40, completedAt: 50, outcome: 'ok', leaseUntil: 540, via: 'schedule', shard: 's' },
  { type: 'ack', process: 'c1', id: 'm-early', invokedAt: 60, completedAt: 61, outcome: 'ok' },
  { type: 'push', process: 'p', id: 'm-late', invokedAt: 0, completedAt: 1, outcome: 'ok', delayMs: 0, shard: 't', priority: 0 },
  { type: 'pop', process: 'c2', invokedAt: 10, completedAt: 400, outcome: 'ok', via: 'schedule', shard: 't', delivered: 0 },
  { type: 'deliver', process: 'c2', id: 'm-late', invokedAt: 410, completedAt: 420, outcome: 'ok', leaseUntil: 910, via: 'schedule', shard: 't' },
  { type: 'ack', process: 'c2', id: 'm-late', invokedAt: 430, completedAt: 431, outcome: 'ok' },
  { type: 'push', process: 'p', id: 'm-lost', invokedAt: 0, completedAt: 1, outcome: 'ok', delayMs: 0 },
  // a phantom after the early delivery: after it in time and in the table's order, before it by severity
  { type: 'deliver', process: 'c3', id: 'ghost', invokedAt: 90, completedAt: 100, outcome: 'ok', leaseUntil: 590, via: 'id' },
  { type: 'ack', process: 'c3', id: 'ghost', invokedAt: 110, completedAt: 111, outcome: 'ok' },
];
const phases = { livenessStart: 0, end: 5_000 };
const settings = { reaperIntervalMs: 100, recoveryBoundMs: 400, deliveryBoundMs: 50 };

describe('worst first: one severity order of findings', () => {
  it('is the argued order: loss (a script past the time limit first, a run that never ends after the losses), a consumer that stopped, due work not consumed after the heal, double pop, resurrection, phantom, a twin unlike its Lua, slow recovery, early, priority inversion, late, then allowed duplicates', () => {
    expect(WORST_FIRST).toEqual(['script-time-limit', 'lost-never-delivered', 'lost-after-delivery', 'event-budget', 'consumer-stopped', 'not-resumed', 'double-pop', 'resurrection', 'unexpected', 'twin-differs', 'slow-recovery', 'early', 'priority-inversion', 'late', 'duplicate']);
    expect(new Set(VIOLATION_KIND_NAMES.map((k) => VIOLATION_KINDS[k].rank)).size).toBe(VIOLATION_KIND_NAMES.length);
    expect(PROPERTIES_WORST_FIRST).toEqual(['atLeastOnce', 'keepsConsuming', 'noDoublePop', 'acksAreFinal', 'noPhantoms', 'twinsMatchLua', 'unackRecovery', 'onTime', 'priorityOrder', 'deliveredPromptly']);
  });

  it('the checker lists findings worst first, and worstFinding picks the loss over earlier findings', () => {
    const report = checkHistory(history, phases, settings);
    expect(report.violations.map((v) => v.kind)).toEqual(['lost-never-delivered', 'unexpected', 'early', 'late']);
    expect(worstFinding(report.violations)?.id).toBe('m-lost');
    expect(worstFinding(report.violations, ['onTime', 'deliveredPromptly'])?.id).toBe('m-early');
  });

  it('dynoq judge prints the kinds worst first', () => {
    const { report } = judgeHistory(history.map((o) => JSON.stringify(o)).join('\n'), { ...phases, ...settings });
    const text = formatJudgement(report, 'h.jsonl', 0, 50);
    const at = (label: string) => text.indexOf(`  ${label}:`);
    expect(at('lost (never delivered)')).toBeGreaterThan(0);
    expect(at('lost (never delivered)')).toBeLessThan(at('unexpected'));
    expect(at('unexpected')).toBeLessThan(at('early'));
    expect(at('early')).toBeLessThan(at('late'));
  });

  it('the HTML report shows its cards worst first, whatever order the report gives', () => {
    const report = checkHistory(history, phases, settings);
    const shuffled = { ...report, violations: [...report.violations].reverse() };
    const html = renderHtmlReport({ title: 't', history, faults: [], report: shuffled, start: 0, livenessStart: 0, end: 5_000 });
    const data = JSON.parse(/<script[^>]*id="data"[^>]*>([^<]*)<\/script>/.exec(html)![1]!) as { violations: { kind: string }[] };
    expect(data.violations.map((v) => v.kind)).toEqual(['lost-never-delivered', 'unexpected', 'early', 'late']);
  });

  it('simulate() and judge() failures name the worst finding of the properties that failed', () => {
    const report = checkHistory(history, phases, settings);
    expect(worstClause(report.violations, ['atLeastOnce', 'onTime', 'deliveredPromptly'], 0)).toBe('; worst: lost-never-delivered of m-lost at t+5000 ms: pushed at t+1 ms, never delivered');
    expect(worstClause(report.violations, ['onTime', 'deliveredPromptly', 'noPhantoms'], 0)).toBe('; worst: unexpected of ghost at t+100 ms: delivered but never pushed');
    expect(worstClause(report.violations, ['onTime', 'deliveredPromptly'], 0)).toMatch(/^; worst: early of m-early at t\+50 ms: /);
    expect(worstClause(report.violations, ['noDoublePop'], 0)).toBe('');
  });

  it('dynoq sim prints the kinds worst first', () => {
    const report = checkHistory(history, phases, settings);
    const config = parseSimConfig({ topology: { kind: 'primary-replica' } });
    const text = formatSummary({ config, report, faults: [], replicas: null, traceEvents: 0, traceHash: 'h' } as unknown as SimResult, 't');
    expect(text.indexOf('  lost (never delivered):')).toBeGreaterThan(0);
    expect(text.indexOf('  lost (never delivered):')).toBeLessThan(text.indexOf('  unexpected:'));
    expect(text.indexOf('  unexpected:')).toBeLessThan(text.indexOf('  early:'));
    expect(text.indexOf('  early:')).toBeLessThan(text.indexOf('  late:'));
  });

  it('mechanisms are named worst kind first', () => {
    expect(
      mechanismsWorstFirst([
        { kind: 'late', cause: 'no fault' },
        { kind: 'lost-after-delivery', cause: 'node-crash (writes lost)' },
        { kind: 'double-pop', cause: 'no fault: lease ran out while held' },
        { kind: 'late', cause: 'no fault' },
      ]),
    ).toEqual(['lost-after-delivery ← node-crash (writes lost)', 'double-pop ← no fault: lease ran out while held', 'late ← no fault']);
  });
});
