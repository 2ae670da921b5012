import { readFileSync } from 'node:fs';
import { isDeepStrictEqual } from 'node:util';
import * as z from 'zod';
import { issueLines } from '../../runtime/zod-issues.js';
import type { HistoryOp } from '../../model/history.js';
import { parseHistoryOp } from '../../model/history-file.js';
import { parseSimConfig, type Fault, type SimConfig } from './config.js';
import { faultSchema, familyOf } from '../faults/index.js';
import { RECLASSIFIED } from '../workloads/history-recorder.js';
import type { StruckFault } from './run.js';
import { SimConfigError } from '../settings/sim-config-error.js';
import type { TraceEvent } from '../kernel/trace.js';
import { notRegularFile } from '../../runtime/regular-file.js';

/** What a trace file holds, read back: enough to judge and draw the run without re-running it. */
export interface TraceContents {
  readonly config: SimConfig;
  readonly history: HistoryOp[];
  /** Faults as they struck, with their true times and what each changed. */
  readonly faults: StruckFault[];
  readonly start: number;
  readonly livenessStart: number;
  readonly end: number;
}

export class TraceFileError extends Error {
  readonly code = 'INVALID_TRACE';
  constructor(file: string, reason: string) {
    super(`${file}: ${reason}`);
    this.name = 'TraceFileError';
  }
}

/** A nemesis `exposure` event's args, as the runner writes them (the fault's index among those that struck). */
const exposureEventSchema = z.object({
  index: z.number().int().nonnegative(),
  exposure: z.object({ struck: z.boolean(), counts: z.record(z.string(), z.number()), ids: z.array(z.string()) }),
});

/** The start event's configuration; a bad one is this trace's error, on one line. */
function startConfig(args: unknown, file: string, line: number): SimConfig {
  try {
    return parseSimConfig((args as { config?: unknown } | null)?.config ?? {});
  } catch (err) {
    if (err instanceof SimConfigError) throw new TraceFileError(file, `line ${line}: start event config ${err.problems.join('; ')}`);
    throw err;
  }
}

export function parseTrace(text: string, file = '<trace>'): TraceContents {
  let config: SimConfig | undefined;
  let start = 0;
  let livenessStart: number | undefined;
  let end: number | undefined;
  const history: HistoryOp[] = [];
  const struck: { t: number; fault: Fault; line: number }[] = [];
  const exposures = new Map<number, { exposure: StruckFault['exposure']; line: number }>();
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (line.trim() === '') continue;
    let e: TraceEvent;
    try {
      e = JSON.parse(line) as TraceEvent;
    } catch {
      throw new TraceFileError(file, `line ${i + 1} is not JSON`);
    }
    if (typeof e !== 'object' || e === null || typeof e.actor !== 'string' || typeof e.op !== 'string') {
      throw new TraceFileError(file, `line ${i + 1} is not a trace event ({t, actor, op, args})`);
    }
    if (e.actor === 'sim' && e.op === 'start') {
      config = startConfig(e.args, file, i + 1);
      start = e.t;
    } else if (e.actor === 'sim' && e.op === 'liveness') livenessStart = e.t;
    else if (e.actor === 'sim' && e.op === 'end') end = e.t;
    else if (e.op === 'history') {
      // Judged as a history file's line is: a bad event would otherwise crash the checker or be judged as garbage.
      const op = parseHistoryOp(e.args, 'args');
      if (typeof op === 'string') throw new TraceFileError(file, `line ${i + 1}: history event ${op}`);
      history.push(op);
    } else if (e.op === RECLASSIFIED) reclassify(history, e, file, i + 1);
    else if (e.actor === 'nemesis' && e.op === 'exposure') {
      // Judged like history events: a bad one would otherwise be drawn as garbage or crash the report.
      const a = exposureEventSchema.safeParse(e.args);
      if (!a.success) throw new TraceFileError(file, `line ${i + 1}: exposure event ${issueLines(a.error.issues).join('; ')}`);
      if (exposures.has(a.data.index)) throw new TraceFileError(file, `line ${i + 1}: a second exposure event for fault ${a.data.index}`);
      exposures.set(a.data.index, { exposure: a.data.exposure, line: i + 1 });
    } else if (e.actor === 'nemesis' && e.args && typeof e.args === 'object' && 'kind' in e.args) {
      const fault = faultSchema.safeParse(e.args);
      if (!fault.success) throw new TraceFileError(file, `line ${i + 1}: fault event ${issueLines(fault.error.issues).join('; ')}`);
      if (typeof e.t !== 'number' || !Number.isFinite(e.t)) throw new TraceFileError(file, `line ${i + 1}: fault event without a time (t)`);
      struck.push({ t: e.t, fault: fault.data as Fault, line: i + 1 });
    }
  }
  for (const [index, { line }] of exposures) {
    if (index >= struck.length) throw new TraceFileError(file, `line ${line}: exposure event for fault ${index}, but the trace holds ${struck.length} fault event(s)`);
  }
  if (!config) throw new TraceFileError(file, 'no start event: not a dynoq trace (write one with dynoq sim --trace FILE)');
  if (end === undefined) throw new TraceFileError(file, 'no end event: the trace is truncated');
  for (const f of struck) {
    // A fault strikes during the run, and only one its configuration scheduled (the runner applies no other).
    if (f.t < start || f.t > end) throw new TraceFileError(file, `line ${f.line}: fault event at t=${f.t}, outside the run (${start}…${end})`);
    const scheduled = config.faults.some((c) => isDeepStrictEqual(c, f.fault));
    if (!scheduled) throw new TraceFileError(file, `line ${f.line}: a ${f.fault.kind} fault event that the start event's configuration does not schedule`);
  }
  const faults = struck.map(({ t, fault }, i) => ({
    t,
    fault,
    family: familyOf(fault.kind),
    exposure: exposures.get(i)?.exposure ?? { struck: false, counts: {}, ids: [] },
  }));
  return { config, history, faults, start, livenessStart: livenessStart ?? end, end };
}

/** A call recorded `fail` that a replica applied later: its operations are `unknown` (HistoryRecorder). */
function reclassify(history: HistoryOp[], e: TraceEvent, file: string, line: number): void {
  const a = e.args as { type?: unknown; invokedAt?: unknown; ids?: unknown } | null;
  if (!a || typeof a.type !== 'string' || typeof a.invokedAt !== 'number' || !Array.isArray(a.ids)) {
    throw new TraceFileError(file, `line ${line}: ${RECLASSIFIED} event args: expected {type, invokedAt, ids}`);
  }
  const ids = a.ids as unknown[];
  history.forEach((o, j) => {
    if (o.process === e.actor && o.type === a.type && o.invokedAt === a.invokedAt && ids.includes(o.id)) history[j] = { ...o, outcome: 'unknown' };
  });
}

export function readTrace(file: string): TraceContents {
  let text: string;
  const notRegular = notRegularFile(file);
  if (notRegular !== undefined) throw new TraceFileError(file, `cannot read: ${notRegular}`);
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new TraceFileError(file, `cannot read: ${err instanceof Error ? err.message : String(err)}`);
  }
  return parseTrace(text, file);
}
