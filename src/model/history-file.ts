import * as z from 'zod';
import { issueLines, type IssueLike } from '../runtime/zod-issues.js';
import { DELIVERY_VIAS, HISTORY_FORMAT_VERSION, type CheckerSettings, type HistoryOp, type RunPhases } from './history.js';

/**
 * The JSON-lines history format `dynoq judge` reads (and `dynoq sim --history` writes): one
 * operation per line, plus an optional `run` line that states the phases and the recovery allowance.
 * Times are milliseconds on one clock the recorder trusts (e.g. epoch ms from NTP-synced hosts).
 */
const time = z.number().finite();
const common = {
  process: z.string().min(1),
  id: z.string().min(1),
  invokedAt: time,
  completedAt: time,
  outcome: z.enum(['ok', 'fail', 'unknown']),
};
const delayMs = z.number().finite().nonnegative();
const placed = { priority: z.number().int().min(0).max(99).optional(), shard: z.string().min(1).optional() };
const via = z.enum(DELIVERY_VIAS);
const opSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('push'), ...common, delayMs: delayMs.default(0), ...placed }).strict(),
  z.object({ type: z.literal('ensure'), ...common, delayMs: delayMs.default(0), ...placed, created: z.boolean().optional() }).strict(),
  z.object({ type: z.literal('deliver'), ...common, outcome: z.literal('ok').default('ok'), leaseUntil: time, via: via.optional(), shard: z.string().min(1).optional() }).strict(),
  z.object({ type: z.literal('ack'), ...common }).strict(),
  z.object({ type: z.literal('extend'), ...common, leaseUntil: time }).strict(),
  z.object({ type: z.literal('reschedule'), ...common, delayMs }).strict(),
  z.object({ type: z.literal('release'), ...common }).strict(),
  z.object({ type: z.literal('remove'), ...common }).strict(),
  z
    .object({
      type: z.literal('pop'),
      process: common.process,
      invokedAt: time,
      completedAt: time,
      outcome: common.outcome,
      via: via.default('schedule'),
      shard: z.string().min(1).optional(),
      id: z.string().min(1).optional(),
      delivered: z.number().int().nonnegative().default(0),
    })
    .strict(),
]);
const runSchema = z
  .object({
    type: z.literal('run'),
    version: z.number().int().min(1).max(HISTORY_FORMAT_VERSION).optional(),
    livenessStart: time.optional(),
    end: time.optional(),
    reaperIntervalMs: z.number().finite().nonnegative().optional(),
    recoveryBoundMs: z.number().finite().nonnegative().optional(),
    deliveryBoundMs: z.number().finite().nonnegative().optional(),
  })
  .strict();

export interface HistoryFile {
  readonly history: HistoryOp[];
  readonly phases: RunPhases;
  readonly settings: CheckerSettings;
}

/** A history file that cannot be judged: `line` is 1-based (0 for the file as a whole). */
export class HistoryFileError extends Error {
  readonly code = 'INVALID_HISTORY';
  constructor(
    readonly file: string,
    readonly line: number,
    readonly reason: string,
  ) {
    super(`${file}${line > 0 ? `:${line}` : ''}: ${reason}`);
    this.name = 'HistoryFileError';
  }
}

function firstIssue(issues: readonly IssueLike[], whole = '(line)'): string {
  return issueLines(issues.slice(0, 1), whole)[0]!;
}

/**
 * One operation in the history format (a history file's line, a trace's history event): the
 * operation, or what is wrong with it in one line naming the field (`whole` names the operation itself).
 */
export function parseHistoryOp(json: unknown, whole = '(line)'): HistoryOp | string {
  const parsed = opSchema.safeParse(json);
  if (!parsed.success) return firstIssue(parsed.error.issues, whole);
  const op = parsed.data as HistoryOp;
  if (op.completedAt < op.invokedAt) return `completedAt ${op.completedAt} is before invokedAt ${op.invokedAt}`;
  return op;
}

export const DEFAULT_JUDGE_SETTINGS: CheckerSettings = { reaperIntervalMs: 1_000, recoveryBoundMs: 5_000 };

/**
 * Reads a history. Without a `run` line (or flags), the whole history is judged as liveness (every
 * un-acked delivery must be recovered in time) and the run ends at the last completion.
 */
export function parseHistoryFile(text: string, file = '<history>', overrides: Partial<RunPhases & CheckerSettings> = {}): HistoryFile {
  const history: HistoryOp[] = [];
  let run: z.output<typeof runSchema> | undefined;
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!.trim();
    if (line === '') continue;
    let json: unknown;
    try {
      json = JSON.parse(line);
    } catch {
      throw new HistoryFileError(file, i + 1, 'not JSON');
    }
    const isRun = typeof json === 'object' && json !== null && (json as { type?: unknown }).type === 'run';
    if (isRun) {
      const parsed = runSchema.safeParse(json);
      if (!parsed.success) throw new HistoryFileError(file, i + 1, firstIssue(parsed.error.issues));
      if (run) throw new HistoryFileError(file, i + 1, 'a second run line');
      run = parsed.data;
    } else {
      const op = parseHistoryOp(json);
      if (typeof op === 'string') throw new HistoryFileError(file, i + 1, op);
      history.push(op);
    }
  }
  if (history.length === 0) throw new HistoryFileError(file, 0, 'no operations');
  // A loop, not Math.min(...spread): a spread of a million arguments overflows the stack.
  let first = Infinity;
  let last = -Infinity;
  for (const o of history) {
    if (o.invokedAt < first) first = o.invokedAt;
    if (o.completedAt > last) last = o.completedAt;
  }
  const end = overrides.end ?? run?.end ?? last;
  const livenessStart = overrides.livenessStart ?? run?.livenessStart ?? first;
  const deliveryBoundMs = overrides.deliveryBoundMs ?? run?.deliveryBoundMs;
  if (livenessStart > end) throw new HistoryFileError(file, 0, `livenessStart ${livenessStart} is after end ${end}`);
  return {
    history,
    phases: { livenessStart, end },
    settings: {
      reaperIntervalMs: overrides.reaperIntervalMs ?? run?.reaperIntervalMs ?? DEFAULT_JUDGE_SETTINGS.reaperIntervalMs,
      recoveryBoundMs: overrides.recoveryBoundMs ?? run?.recoveryBoundMs ?? DEFAULT_JUDGE_SETTINGS.recoveryBoundMs,
      ...(deliveryBoundMs !== undefined ? { deliveryBoundMs } : {}),
    },
  };
}

/** The same format, written: a `run` line, then one operation per line. */
export function formatHistoryFile(history: readonly HistoryOp[], phases: RunPhases, settings: CheckerSettings): string {
  const lines = [JSON.stringify({ type: 'run', version: HISTORY_FORMAT_VERSION, ...phases, ...settings }), ...history.map((o) => JSON.stringify(o))];
  return `${lines.join('\n')}\n`;
}
