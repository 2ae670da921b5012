import * as z from 'zod';
import { issueLines, type IssueLike } from '../runtime/zod-issues.js';
import { DELIVERY_VIAS, HISTORY_FORMAT_VERSION, type CheckerSettings, type HistoryOp, type RunPhases } from './history.js';

/**
 * The JSON-lines history format `dynoq judge` reads (and `dynoq sim --history` writes): one
 * operation per line, plus an optional `run` line that states the version, the phases and the
 * recovery allowance, and `fault` lines (a fault's start and end). Times are milliseconds on one
 * clock the recorder trusts (e.g. epoch ms from NTP-synced hosts). Fields the format does not know
 * are kept on the line and shown with its findings, never refused (a recorder's `attempt`, `job`…).
 */
const time = z.number().finite().describe('ms on the one clock the recorder trusts');
const outcome = z.enum(['ok', 'fail', 'unknown']).describe('ok: it happened; fail: a definite refusal, no effect; unknown: it may or may not have happened');
const common = {
  process: z.string().min(1).describe('the client that made the call'),
  id: z.string().min(1).describe('the message the call is about'),
  invokedAt: time.describe('when the call was made'),
  completedAt: time.nullable().optional().describe('when it returned; absent or null: still in flight when the history ended (its outcome must then be unknown)'),
  outcome,
};
const returned = { completedAt: time.describe('when it returned') };
const delayMs = z.number().finite().nonnegative().describe('the delay asked for: due at invokedAt + delayMs');
const placed = {
  priority: z.number().int().min(0).max(99).optional().describe('0 most urgent (absent: 0)'),
  shard: z.string().min(1).optional().describe('the shard it was sent to (priority order and late need it)'),
};
const via = z.enum(DELIVERY_VIAS).describe('how it was popped: by the schedule, by id, or by a predicate');
const opSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('push').describe('the line: push'), ...common, delayMs: delayMs.default(0), ...placed }).loose().describe('a push'),
  z.object({ type: z.literal('ensure').describe('the line: ensure'), ...common, delayMs: delayMs.default(0), ...placed, created: z.boolean().optional().describe('whether it wrote the message (known when ok)') }).loose().describe('a push that writes only when the message does not exist'),
  z
    .object({
      type: z.literal('deliver').describe('the line: deliver'),
      ...common,
      ...returned,
      outcome: z.literal('ok').default('ok').describe('always ok: a pop returned this message'),
      leaseUntil: time.describe('the lease the holder was promised: pop invocation + lease length'),
      via: via.optional(),
      shard: z.string().min(1).optional().describe('the shard it came from'),
    })
    .loose()
    .describe('a pop returned this message'),
  z
    .object({
      type: z.literal('kept-back').describe('the line: kept-back'),
      ...common,
      ...returned,
      outcome: z.literal('ok').default('ok').describe("always ok: the pop's process and times"),
      leaseUntil: time.describe('when the lease ran out at the latest: pop return + lease length'),
      shard: z.string().min(1).optional().describe('the shard it was leased from'),
    })
    .loose()
    .describe('a pop leased this message and kept it back (its reply came a whole lease late): leased to nobody until leaseUntil'),
  z.object({ type: z.literal('ack').describe('the line: ack'), ...common }).loose().describe('an ack'),
  z.object({ type: z.literal('extend').describe('the line: extend'), ...common, leaseUntil: time.describe('the new lease deadline') }).loose().describe('setUnackTimeout on a held message'),
  z.object({ type: z.literal('reschedule').describe('the line: reschedule'), ...common, delayMs: delayMs.describe('the new delay, from the call') }).loose().describe('setTimeout on a queued message'),
  z.object({ type: z.literal('release').describe('the line: release'), ...common }).loose().describe('the holder hands its lease back'),
  z.object({ type: z.literal('remove').describe('the line: remove'), ...common }).loose().describe('a remove'),
  z
    .object({
      type: z.literal('pop').describe('the line: pop'),
      process: common.process,
      invokedAt: common.invokedAt,
      completedAt: common.completedAt,
      outcome,
      via: via.default('schedule'),
      shard: z.string().min(1).optional().describe('the shard it pops from; absent: any shard'),
      id: z.string().min(1).optional().describe('the target of a pop by id'),
      delivered: z.number().int().nonnegative().default(0).describe('how many messages it returned (each a deliver line of its own)'),
    })
    .loose()
    .describe('one pop call, whatever it returned'),
]);
const runSchema = z
  .object({
    type: z.literal('run').describe('the line: run'),
    version: z.number().int().min(1).optional().describe(`the format's version (this dynoq reads 1 to ${HISTORY_FORMAT_VERSION}; a newer one is refused)`),
    livenessStart: time.optional().describe('when the liveness phase began: from then on every un-acked delivery must be recovered in time'),
    end: time.optional().describe('when the history ends (default: the last completion)'),
    reaperIntervalMs: z.number().finite().nonnegative().optional().describe('the reaper period (default 1000)'),
    recoveryBoundMs: z.number().finite().nonnegative().optional().describe('the recovery bound on top of lease end + reaper period (default 5000)'),
    deliveryBoundMs: z.number().finite().nonnegative().optional().describe('the delivery bound B (docs/CHECKER.md §2.4); absent: priority order and delivered promptly are not judged'),
  })
  .loose()
  .describe('the run: version, phases and settings (at most one line)');
const faultSchema = z
  .object({
    type: z.literal('fault').describe('the line: fault'),
    phase: z.enum(['start', 'end']).describe('a fault began or ended (an end closes the earliest open start of the same kind and target)'),
    kind: z.string().min(1).describe('what kind of fault (e.g. partition, kill, clock-skew)'),
    target: z.string().min(1).optional().describe('what it struck (a node, a process, a link)'),
    at: time.describe('when it began or ended'),
    detail: z.unknown().optional().describe('free-form'),
  })
  .loose()
  .describe('a fault injected or observed: violations are explained by the faults in effect at their time');

const endSchema = z
  .object({
    type: z.literal('end').describe('the line: end'),
    at: time.describe('when the recording stopped'),
  })
  .loose()
  .describe('the recording stopped here (recordHistory writes it): the history ends at the latest end line, or at its last completion if later; what is still held or in flight then is unknown, not lost');

/** The JSON Schema of one line of a history file (docs/history.schema.json). */
export function historyJsonSchema(): unknown {
  return z.toJSONSchema(z.union([runSchema, faultSchema, endSchema, opSchema]).describe('one line of a dynoq history (JSON lines)'), { io: 'input' });
}

/** A fault as the history recorded it: from its start line to its end line (the end of the history without one). */
export interface FaultSpan {
  readonly kind: string;
  readonly target?: string;
  readonly from: number;
  /** Infinity when no end line closed it: in effect to the end of the history. */
  readonly to: number;
  readonly detail?: unknown;
  /** The start line's fields the format does not know. */
  readonly extra?: Readonly<Record<string, unknown>>;
}

export interface HistoryFile {
  readonly history: HistoryOp[];
  readonly phases: RunPhases;
  readonly settings: CheckerSettings;
  /** The faults the history recorded, by start time (absent without fault lines). */
  readonly faults?: FaultSpan[];
  /** Operations still in flight when the history ended (no completedAt), judged as unknown and completing at the end (absent: none). */
  readonly inFlight?: number;
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

/** The fields each line type knows; any other field is the recorder's own (kept, shown). */
const KNOWN_FIELDS: Readonly<Record<string, ReadonlySet<string>>> = Object.fromEntries(
  [...opSchema.options, runSchema, faultSchema, endSchema].map((o) => [o.shape.type.value, new Set(Object.keys(o.shape))]),
);

/** A line's fields that the format does not know (a recorder's own), or undefined when it has none. */
export function extraFields(line: { readonly type: string }): Record<string, unknown> | undefined {
  const known = KNOWN_FIELDS[line.type];
  let extra: Record<string, unknown> | undefined;
  for (const [k, v] of Object.entries(line)) {
    if (known?.has(k)) continue;
    (extra ??= {})[k] = v;
  }
  return extra;
}

type Parsed<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly reason: string };

const OUTCOME_SET: ReadonlySet<unknown> = new Set(['ok', 'fail', 'unknown']);
const VIA_SET: ReadonlySet<unknown> = new Set(DELIVERY_VIAS);
const isTime = (x: unknown): x is number => typeof x === 'number' && Number.isFinite(x);
const isName = (x: unknown): boolean => typeof x === 'string' && x.length > 0;
const isDelay = (x: unknown): boolean => isTime(x) && x >= 0;
const optional = (x: unknown, test: (x: unknown) => boolean): boolean => x === undefined || test(x);

/**
 * The common case without zod (a history has millions of lines): a completed operation whose every
 * field is plainly valid, with zod's defaults filled in, or undefined — then the schema decides (and
 * names what is wrong). Accepts nothing the schema refuses and returns what it returns (a property
 * test compares them).
 */
export function plainOp(json: unknown): HistoryOp | undefined {
  if (typeof json !== 'object' || json === null || Array.isArray(json)) return undefined;
  const o = json as Record<string, unknown>;
  if (!isName(o.process) || !isTime(o.invokedAt) || !isTime(o.completedAt) || o.completedAt < o.invokedAt) return undefined;
  const type = o.type;
  if (type === 'deliver' || type === 'kept-back') {
    if (o.outcome === undefined) o.outcome = 'ok';
    else if (o.outcome !== 'ok') return undefined;
  } else if (!OUTCOME_SET.has(o.outcome)) return undefined;
  if (type === 'pop') {
    if (!optional(o.via, (x) => VIA_SET.has(x)) || !optional(o.shard, isName) || !optional(o.id, isName)) return undefined;
    if (!optional(o.delivered, (x) => Number.isSafeInteger(x) && (x as number) >= 0)) return undefined;
    if (o.via === undefined) o.via = 'schedule';
    if (o.delivered === undefined) o.delivered = 0;
    return o as unknown as HistoryOp;
  }
  if (!isName(o.id)) return undefined;
  switch (type) {
    case 'push':
    case 'ensure':
      if (!optional(o.delayMs, isDelay) || !optional(o.shard, isName)) return undefined;
      if (!optional(o.priority, (x) => Number.isSafeInteger(x) && (x as number) >= 0 && (x as number) <= 99)) return undefined;
      if (type === 'ensure' && !optional(o.created, (x) => typeof x === 'boolean')) return undefined;
      if (o.delayMs === undefined) o.delayMs = 0;
      return o as unknown as HistoryOp;
    case 'deliver':
      if (!isTime(o.leaseUntil) || !optional(o.via, (x) => VIA_SET.has(x)) || !optional(o.shard, isName)) return undefined;
      return o as unknown as HistoryOp;
    case 'kept-back':
      if (!isTime(o.leaseUntil) || !optional(o.shard, isName)) return undefined;
      return o as unknown as HistoryOp;
    case 'extend':
      return isTime(o.leaseUntil) ? (o as unknown as HistoryOp) : undefined;
    case 'reschedule':
      return isDelay(o.delayMs) ? (o as unknown as HistoryOp) : undefined;
    case 'ack':
    case 'release':
    case 'remove':
      return o as unknown as HistoryOp;
    default:
      return undefined;
  }
}

/**
 * One operation; `inFlight` when it had not returned when the history ended (its completedAt is
 * then a placeholder, the invocation, until the end is known: see {@link completeAtEnd}).
 */
function parseOp(json: unknown, whole: string): Parsed<{ op: HistoryOp; inFlight: boolean }> {
  const fast = plainOp(json);
  if (fast) return { ok: true, value: { op: fast, inFlight: false } };
  const parsed = opSchema.safeParse(json);
  if (!parsed.success) return { ok: false, reason: firstIssue(parsed.error.issues, whole) };
  const op = parsed.data as { -readonly [K in keyof HistoryOp]: HistoryOp[K] } & { completedAt: number | null | undefined };
  if (op.completedAt === undefined || op.completedAt === null) {
    if (op.outcome !== 'unknown') return { ok: false, reason: `completedAt: missing, so the operation was in flight when the history ended: its outcome must be unknown, not ${op.outcome}` };
    op.completedAt = op.invokedAt;
    return { ok: true, value: { op: op as HistoryOp, inFlight: true } };
  }
  if (op.completedAt < op.invokedAt) return { ok: false, reason: `completedAt ${op.completedAt} is before invokedAt ${op.invokedAt}` };
  return { ok: true, value: { op: op as HistoryOp, inFlight: false } };
}

/**
 * One operation in the history format (a history file's line, a trace's history event): the
 * operation, or what is wrong with it in one line naming the field (`whole` names the operation itself).
 * An operation without completedAt is refused here: only a history file may end with calls in flight.
 */
export function parseHistoryOp(json: unknown, whole = '(line)'): HistoryOp | string {
  const r = parseOp(json, whole);
  if (!r.ok) return r.reason;
  if (r.value.inFlight) return 'completedAt: missing';
  return r.value.op;
}

/** The schema alone on one operation (what plainOp must agree with): the parsed operation or undefined. */
export function schemaOp(json: unknown): unknown {
  const parsed = opSchema.safeParse(json);
  return parsed.success ? parsed.data : undefined;
}

/** An operation in flight at the end completes, with its unknown outcome, at the end (or its invocation, if later). */
export function completeAtEnd(op: HistoryOp, end: number): void {
  (op as { completedAt: number }).completedAt = Math.max(end, op.invokedAt);
}

export type RunLine = z.output<typeof runSchema>;
type FaultLine = z.output<typeof faultSchema>;

/** One non-empty line of a history file, parsed and checked; throws HistoryFileError naming the line and field. */
export type HistoryLine =
  | { readonly kind: 'run'; readonly run: RunLine }
  | { readonly kind: 'fault'; readonly fault: FaultLine }
  | { readonly kind: 'end'; readonly at: number }
  | { readonly kind: 'op'; readonly op: HistoryOp; readonly inFlight: boolean };

export function parseHistoryLine(text: string, file: string, line: number): HistoryLine {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new HistoryFileError(file, line, 'not JSON');
  }
  return historyLineOf(json, file, line);
}

/** The same, from the line's JSON value (as JSON.parse gives it: plainOp fills defaults into it). */
export function historyLineOf(json: unknown, file: string, line: number): HistoryLine {
  const type = typeof json === 'object' && json !== null ? (json as { type?: unknown }).type : undefined;
  if (type === 'run') {
    const parsed = runSchema.safeParse(json);
    if (!parsed.success) throw new HistoryFileError(file, line, firstIssue(parsed.error.issues));
    const v = parsed.data.version;
    if (v !== undefined && v > HISTORY_FORMAT_VERSION) {
      throw new HistoryFileError(file, line, `version: ${v} is newer than this dynoq reads (versions 1 to ${HISTORY_FORMAT_VERSION}); upgrade dynoq`);
    }
    return { kind: 'run', run: parsed.data };
  }
  if (type === 'fault') {
    const parsed = faultSchema.safeParse(json);
    if (!parsed.success) throw new HistoryFileError(file, line, firstIssue(parsed.error.issues));
    return { kind: 'fault', fault: parsed.data };
  }
  if (type === 'end') {
    const parsed = endSchema.safeParse(json);
    if (!parsed.success) throw new HistoryFileError(file, line, firstIssue(parsed.error.issues));
    return { kind: 'end', at: parsed.data.at };
  }
  const r = parseOp(json, '(line)');
  if (!r.ok) throw new HistoryFileError(file, line, r.reason);
  return { kind: 'op', ...r.value };
}

/** Pairs fault lines into spans: an end closes the earliest open start of the same kind and target. */
export class FaultSpans {
  private readonly open = new Map<string, { fault: FaultLine; index: number }[]>();
  private readonly spans: (FaultSpan | null)[] = [];

  add(fault: FaultLine, file: string, line: number): void {
    const key = `${fault.kind}\u0000${fault.target ?? ''}`;
    const list = this.open.get(key) ?? [];
    if (fault.phase === 'start') {
      list.push({ fault, index: this.spans.length });
      this.spans.push(null);
      this.open.set(key, list);
      return;
    }
    const start = list.shift();
    if (!start) throw new HistoryFileError(file, line, `phase: an end of fault ${fault.kind}${fault.target !== undefined ? ` on ${fault.target}` : ''} with no start before it`);
    if (fault.at < start.fault.at) throw new HistoryFileError(file, line, `at: the fault ends at ${fault.at}, before it started (${start.fault.at})`);
    this.spans[start.index] = spanOf(start.fault, fault.at);
  }

  /** The spans by start time; those never closed run to the end of the history. */
  done(): FaultSpan[] {
    for (const list of this.open.values()) for (const s of list) this.spans[s.index] = spanOf(s.fault, Infinity);
    this.open.clear();
    return (this.spans as FaultSpan[]).sort((a, b) => a.from - b.from);
  }
}

function spanOf(f: FaultLine, to: number): FaultSpan {
  const extra = extraFields(f);
  return { kind: f.kind, ...(f.target !== undefined ? { target: f.target } : {}), from: f.at, to, ...(f.detail !== undefined ? { detail: f.detail } : {}), ...(extra ? { extra } : {}) };
}

/** The faults in effect at time t (started at or before t, not ended before t). */
export function faultsAt(faults: readonly FaultSpan[], t: number): FaultSpan[] {
  const out: FaultSpan[] = [];
  for (const f of faults) {
    if (f.from > t) break;
    if (f.to >= t) out.push(f);
  }
  return out;
}

export const DEFAULT_JUDGE_SETTINGS: CheckerSettings = { reaperIntervalMs: 1_000, recoveryBoundMs: 5_000 };

/**
 * What the whole file says about the run, once every line has been read: phases and settings. The
 * end: a flag, else the run line's, else the latest end line or the last completion, whichever is later.
 */
export function runOf(run: RunLine | undefined, first: number, last: number, file: string, overrides: Partial<RunPhases & CheckerSettings>, endLine = -Infinity): { phases: RunPhases; settings: CheckerSettings } {
  const end = overrides.end ?? run?.end ?? Math.max(last, endLine);
  const livenessStart = overrides.livenessStart ?? run?.livenessStart ?? first;
  const deliveryBoundMs = overrides.deliveryBoundMs ?? run?.deliveryBoundMs;
  if (livenessStart > end) throw new HistoryFileError(file, 0, `livenessStart ${livenessStart} is after end ${end}`);
  return {
    phases: { livenessStart, end },
    settings: {
      reaperIntervalMs: overrides.reaperIntervalMs ?? run?.reaperIntervalMs ?? DEFAULT_JUDGE_SETTINGS.reaperIntervalMs,
      recoveryBoundMs: overrides.recoveryBoundMs ?? run?.recoveryBoundMs ?? DEFAULT_JUDGE_SETTINGS.recoveryBoundMs,
      ...(deliveryBoundMs !== undefined ? { deliveryBoundMs } : {}),
    },
  };
}

/**
 * Reads a history. Without a `run` line (or flags), the whole history is judged as liveness (every
 * un-acked delivery must be recovered in time) and the run ends at its latest `end` line or its last
 * completion (or the last invocation of a call still in flight), whichever is later.
 */
export function parseHistoryFile(text: string, file = '<history>', overrides: Partial<RunPhases & CheckerSettings> = {}): HistoryFile {
  const history: HistoryOp[] = [];
  const inFlight: HistoryOp[] = [];
  const faults = new FaultSpans();
  let run: RunLine | undefined;
  // A loop, not Math.min(...spread): a spread of a million arguments overflows the stack.
  let first = Infinity;
  let last = -Infinity;
  let endLine = -Infinity;
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!.trim();
    if (line === '') continue;
    const parsed = parseHistoryLine(line, file, i + 1);
    if (parsed.kind === 'run') {
      if (run) throw new HistoryFileError(file, i + 1, 'a second run line');
      run = parsed.run;
    } else if (parsed.kind === 'fault') {
      faults.add(parsed.fault, file, i + 1);
    } else if (parsed.kind === 'end') {
      endLine = Math.max(endLine, parsed.at);
    } else {
      const o = parsed.op;
      history.push(o);
      if (parsed.inFlight) inFlight.push(o);
      if (o.invokedAt < first) first = o.invokedAt;
      if (o.completedAt > last) last = o.completedAt;
    }
  }
  if (history.length === 0) throw new HistoryFileError(file, 0, 'no operations');
  const { phases, settings } = runOf(run, first, last, file, overrides, endLine);
  for (const o of inFlight) completeAtEnd(o, phases.end);
  const spans = faults.done();
  return { history, phases, settings, ...(spans.length > 0 ? { faults: spans } : {}), ...(inFlight.length > 0 ? { inFlight: inFlight.length } : {}) };
}

/** The same format, written: a `run` line, then one operation per line. */
export function formatHistoryFile(history: readonly HistoryOp[], phases: RunPhases, settings: CheckerSettings): string {
  const lines = [JSON.stringify({ type: 'run', version: HISTORY_FORMAT_VERSION, ...phases, ...settings })];
  for (const o of history) lines.push(JSON.stringify(o));
  return `${lines.join('\n')}\n`;
}
