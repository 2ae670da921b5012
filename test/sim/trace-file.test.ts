import { describe, expect, it } from 'vitest';
import { parseSimConfig } from '../../src/sim/run/config.js';
import { configurationRun } from '../../src/sim/run/configurations.js';
import { configurationNamed } from '../../src/sim/campaign/guarantees.js';
import { runSimulation } from '../../src/sim/run/run.js';
import { parseTrace, TraceFileError } from '../../src/sim/run/trace-file.js';

/** A run with faults that struck, its trace kept: what `dynoq sim --trace` writes and `dynoq report` reads. */
async function faultyTrace() {
  const named = configurationNamed('dynomite/DC_QUORUM/atomic/swarm')!;
  return runSimulation({ ...parseSimConfig(configurationRun(named, 'trace-file')), keepTrace: true });
}

/** The trace with line `n` (0-based) of the lines matching `select` rewritten by `edit`. */
function tamper(text: string, select: (e: Record<string, unknown>) => boolean, edit: (e: Record<string, unknown>) => unknown): string {
  const lines = text.split('\n');
  const i = lines.findIndex((l) => l !== '' && select(JSON.parse(l) as Record<string, unknown>));
  expect(i).toBeGreaterThanOrEqual(0);
  lines[i] = JSON.stringify(edit(JSON.parse(lines[i]!) as Record<string, unknown>));
  return lines.join('\n');
}

const isFault = (e: Record<string, unknown>) => e.actor === 'nemesis' && typeof e.args === 'object' && e.args !== null && 'kind' in e.args;
const isExposure = (e: Record<string, unknown>) => e.actor === 'nemesis' && e.op === 'exposure';

describe('parseTrace: fault and exposure events', () => {
  it('refuses a second exposure event for one fault', async () => {
    const r = await faultyTrace();
    const lines = r.traceText!.split('\n');
    const exposure = lines.find((l) => l.includes('"op":"exposure"'))!;
    const text = [...lines.slice(0, -1), exposure, ''].join('\n');
    expect(() => parseTrace(text, 'run.trace')).toThrow(/line \d+: a second exposure event for fault 0/);
  });

  it('reads back the faults that struck, with their times and exposure, as the run reported them', async () => {
    const r = await faultyTrace();
    expect(r.faults.length).toBeGreaterThan(0);
    const back = parseTrace(r.traceText!);
    expect(back.faults).toEqual(r.faults);
  });

  it.each([
    ['a fault of no known kind', isFault, (e: Record<string, unknown>) => ({ ...e, args: { kind: 'meteor', at: 1 } }), /line \d+: fault event/],
    ['a fault missing its target', isFault, (e: Record<string, unknown>) => ({ ...e, args: { kind: 'crash-node', at: 1 } }), /line \d+: fault event/],
    ['a fault without a time', isFault, (e: Record<string, unknown>) => ({ ...e, t: null }), /line \d+: fault event without a time/],
    ['an exposure without its counts', isExposure, (e: Record<string, unknown>) => ({ ...e, args: { index: 0, exposure: { struck: true, ids: [] } } }), /line \d+: exposure event exposure\.counts/],
    ['an exposure with a negative index', isExposure, (e: Record<string, unknown>) => ({ ...e, args: { ...(e.args as object), index: -1 } }), /line \d+: exposure event index/],
    ['an exposure for a fault that is not there', isExposure, (e: Record<string, unknown>) => ({ ...e, args: { ...(e.args as object), index: 999 } }), /line \d+: exposure event for fault 999/],
    ['a fault outside the run', isFault, (e: Record<string, unknown>) => ({ ...e, t: 1e300 }), /line \d+: fault event at t=1e\+300, outside the run/],
    ['a fault the configuration does not schedule', isFault, (e: Record<string, unknown>) => ({ ...e, args: { ...(e.args as object), at: 123_456 } }), /line \d+: a [a-z-]+ fault event that the start event's configuration does not schedule/],
  ])('refuses %s with a TraceFileError naming it', async (_name, select, edit, message) => {
    const r = await faultyTrace();
    const text = tamper(r.traceText!, select, edit);
    expect(() => parseTrace(text, 'run.trace')).toThrow(TraceFileError);
    expect(() => parseTrace(text, 'run.trace')).toThrow(message);
  });
});
