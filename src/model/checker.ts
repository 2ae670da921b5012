import type { CheckerSettings, DeliverOp, HistoryOp, PopOp, RunPhases, StoppedConsumer } from './history.js';
import { freeIntervals, unknownPopsReaching, type FreeInterval } from './free-intervals.js';
import { holdsOf } from './holds.js';
import { latenessOf, waitingPops } from './late.js';
import { groupById, mayHaveCreated, placeOf, prioritiesAt, shardAt, type MessageOps } from './message-ops.js';
import { owedStretches } from './owed.js';
import type { AllowedFinding, FoundAbout, MessageJudging, OwedStretch, PropertyModule, ShardSets } from './properties/judging.js';
import { ALLOWED_FINDINGS, nonePerProperty, PROPERTY_TABLE, propertiesFrom, VIOLATION_KINDS, worstFirst, zeroPerKind, type PropertyName, type ViolationKind } from './properties.js';

export type { ShardSets } from './properties/judging.js';

export interface Violation {
  readonly kind: ViolationKind;
  readonly id: string;
  /** When it became a violation (a delivery's return, a recovery deadline, the end of the run). */
  readonly t: number;
  readonly processes: readonly string[];
  readonly detail: string;
}

/** p50 / p99 / max of a set of durations (ms), and how many there were. */
interface Figures {
  readonly count: number;
  readonly p50: number;
  readonly p99: number;
  readonly max: number;
}

export interface CheckReport {
  /** Messages (ids) with a push that returned ok. */
  readonly pushed: number;
  /** Messages delivered at least once, and deliveries in total. */
  readonly delivered: number;
  readonly deliveries: number;
  /** Messages with an ack that returned ok. */
  readonly acked: number;
  /** Operations whose outcome is unknown (the checker neither required nor blamed their effect). */
  readonly unknownOps: number;
  /** Every finding, worst first (WORST_FIRST), then in time order, then by id. */
  readonly violations: readonly Violation[];
  /** Findings per kind, and distinct messages affected per kind. */
  readonly counts: Readonly<Record<ViolationKind, number>>;
  readonly messagesAffected: Readonly<Record<ViolationKind, number>>;
  /** Due → delivery latency of the first delivery after each push (ms). */
  readonly latency: { readonly p50: number; readonly p99: number };
  /**
   * Lateness (docs/CHECKER.md §2.4): each delivery by the schedule minus the later of when the message was free
   * and due and when a pop of its shard began waiting. Needs pops and shards in the history.
   */
  readonly lateness: Figures;
  readonly properties: Readonly<Record<PropertyName, boolean>>;
  /**
   * Whether the history could have broken each property at all (docs/CHECKER.md §5; a violated
   * property was exercised). A property held but not exercised is no evidence.
   */
  readonly exercised: Readonly<Record<PropertyName, boolean>>;
}

/** Nearest-rank percentile for p below 100 (the index then stays inside the array). */
function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.floor((p / 100) * sorted.length)]!;
}

function figuresOf(values: readonly number[]): Figures {
  const sorted = [...values].sort((a, b) => a - b);
  return { count: sorted.length, p50: percentile(sorted, 50), p99: percentile(sorted, 99), max: sorted.length === 0 ? 0 : sorted[sorted.length - 1]! };
}

export interface Judged {
  readonly violations: Violation[];
  readonly latencies: number[];
  readonly exercised: Record<PropertyName, boolean>;
}

/** The judges of one message, in the order they run: the allowed findings, then the property table's. */
const MESSAGE_JUDGES: readonly { readonly property: PropertyName | null; readonly module: PropertyModule | AllowedFinding }[] = [
  ...ALLOWED_FINDINGS.map((module) => ({ property: null, module: module as AllowedFinding })),
  ...(PROPERTY_TABLE as readonly PropertyModule[]).filter((p) => p.judgeMessage).map((module) => ({ property: module.name as PropertyName, module })),
];

/** The properties judged per shard, and over the consumers that stopped, in table order (only with a delivery bound). */
const SHARD_JUDGES = (PROPERTY_TABLE as readonly PropertyModule[]).filter((p) => p.judgeShard);
const STOPS_JUDGES = (PROPERTY_TABLE as readonly PropertyModule[]).filter((p) => p.judgeStops);

/** What judging one message needs to know of the whole history. */
interface HistoryContext {
  /** The unknown pops still in flight when the history ended (any message's; see at-least-once). */
  readonly popsAtEnd?: readonly PopOp[];
  /** Whether the history records pop calls: then, with a delivery bound, recovery is judged against them (see un-ack recovery). */
  readonly popsRecorded?: boolean;
}

/**
 * Every per-message definition of docs/CHECKER.md §2 and §3 over the operations of one message: a loop
 * over the property table (Jepsen's checker composition). A message nobody pushed is judged only by
 * the modules that ask for it.
 */
export function judgeMessage(id: string, m: MessageOps, phases: RunPhases, settings: CheckerSettings, out: Judged, context: HistoryContext = {}): void {
  messageJudge(phases, settings, out, context)(id, m);
}

/**
 * judgeMessage for every message of one history: one context object serves every module and every
 * message (made per module and message, its objects and closures cost more than the judging itself).
 */
export function messageJudge(phases: RunPhases, settings: CheckerSettings, out: Judged, context: HistoryContext = {}): (id: string, m: MessageOps) => void {
  // The property whose judge runs, and the message it judges.
  let judging: PropertyName | null = null;
  const j: { -readonly [K in keyof MessageJudging<string>]: MessageJudging<string>[K] } = {
    id: '',
    m: { pushes: [], deliveries: [], keptBack: [], acks: [], extends: [], removes: [], reschedules: [], releases: [] },
    holds: [],
    phases,
    settings,
    popsAtEnd: context.popsAtEnd ?? [],
    popsRecorded: context.popsRecorded === true,
    found: (kind, t, processes, detail) => out.violations.push({ kind: kind as ViolationKind, id: j.id, t, processes, detail }),
    exercised: () => {
      if (judging) out.exercised[judging] = true;
    },
    latency: (ms) => out.latencies.push(ms),
  };
  return (id, m) => {
    const pushed = m.pushes.length > 0;
    j.id = id;
    j.m = m;
    j.holds = holdsOf(m);
    for (const { property, module } of MESSAGE_JUDGES) {
      if (!pushed && !module.judgesUnpushed) continue;
      judging = property;
      module.judgeMessage!(j);
    }
  };
}

/** The unknown pops of a history still in flight at its end (their completion is the end). */
export function popsInFlightAtEnd(pops: readonly PopOp[], end: number): PopOp[] {
  return pops.filter((p) => p.outcome === 'unknown' && p.completedAt >= end);
}



/**
 * What one message contributes to the shards' judgements (priority order, late): its free and due
 * stretches and its deliveries, each on the shard of the life of the message it belongs to.
 */
export interface ShardPart {
  readonly id: string;
  /** Free and due stretches, each with the shard of its life. */
  readonly free: readonly { readonly shard: string; readonly iv: FreeInterval }[];
  readonly deliveries: readonly DeliverOp[];
  /** Per delivery (same index): its shard, and the most urgent priority the message may have had when popped. */
  readonly placed: readonly { readonly shard: string; readonly priority: number }[];
  /** When a re-delivery was owed after a hold ended without an ack (un-ack recovery, judged on demand). */
  readonly owed: readonly OwedStretch[];
}

/** A message's part of the shards' judgements, or undefined when it has no push. */
export function shardPartOf(id: string, m: MessageOps, pops: readonly PopOp[], phases: RunPhases, settings: CheckerSettings): ShardPart | undefined {
  if (m.pushes.length === 0) return undefined;
  // A shard belongs to one life of the message (shardAt): a free stretch counts on the shard of its
  // life, and only where every life it may be in agrees on it. Counterexample that needed it: a
  // full-profile run where an ensure re-created e0 on shard a after its first life on shard b, and
  // the first life's wait was charged to a pop of shard a.
  const everyShard = new Set(m.pushes.filter(mayHaveCreated).map((p) => p.shard));
  const { shard } = placeOf(m);
  const reaching = unknownPopsReaching(pops, id, everyShard.size > 1 ? undefined : shard);
  const free: { shard: string; iv: FreeInterval }[] = [];
  // A waiting message counts with its least urgent possible priority (prioritiesAt).
  for (const iv of freeIntervals(id, (t) => Math.max(...prioritiesAt(m, t)), m, reaching, phases.end)) {
    const at = shardAt(m, iv.from);
    if (at !== undefined) free.push({ shard: at, iv });
  }
  const deliveries: DeliverOp[] = [];
  const placed: { shard: string; priority: number }[] = [];
  for (const d of m.deliveries) {
    const at = d.shard ?? shardAt(m, d.completedAt);
    if (at === undefined) continue;
    deliveries.push(d);
    // A popped message counts with its most urgent possible priority (prioritiesAt).
    placed.push({ shard: at, priority: Math.min(...prioritiesAt(m, d.completedAt)) });
  }
  return { id, free, deliveries, placed, owed: owedStretches(id, m, holdsOf(m), reaching, phases, settings) };
}

export function addShardPart(shards: ShardSets, part: ShardPart): void {
  const of = (name: string) => {
    let s = shards.get(name);
    if (!s) shards.set(name, (s = { free: [], deliveries: [], priorityOf: new Map(), owed: [] }));
    return s;
  };
  for (const f of part.free) of(f.shard).free.push(f.iv);
  for (const o of part.owed) of(o.shard).owed.push(o);
  part.deliveries.forEach((d, i) => {
    const { shard, priority } = part.placed[i]!;
    const s = of(shard);
    s.deliveries.push(d);
    s.priorityOf.set(d, priority);
  });
}

/** How a property's shard or stops judge reports into `out`: its findings (about any message) and its exposure. */
function reportsOf(module: PropertyModule, out: Judged): { found: FoundAbout<string>; exercised: () => void } {
  return {
    found: (kind, id, t, processes, detail) => out.violations.push({ kind: kind as ViolationKind, id, t, processes, detail }),
    exercised: () => {
      out.exercised[module.name as PropertyName] = true;
    },
  };
}

/** The definitions about a shard as a whole (docs/CHECKER.md §3): a loop over the property table, with the lateness figures. */
export function judgeShardSets(shards: ShardSets, pops: readonly PopOp[], boundMs: number, out: Judged): number[] {
  const lateness: number[] = [];
  for (const [shard, s] of shards) {
    const waiting = waitingPops(pops, shard);
    for (const module of SHARD_JUDGES) {
      module.judgeShard!({
        shard,
        s,
        waiting,
        boundMs,
        ...reportsOf(module, out),
      });
    }
    if (waiting.length > 0) for (const x of latenessOf(s.deliveries, s.free, waiting)) lateness.push(x);
  }
  return lateness;
}

function judgeShards(byId: ReadonlyMap<string, MessageOps>, pops: readonly PopOp[], phases: RunPhases, settings: CheckerSettings, boundMs: number, out: Judged): number[] {
  const shards: ShardSets = new Map();
  for (const [id, m] of byId) {
    const part = shardPartOf(id, m, pops, phases, settings);
    if (part) addShardPart(shards, part);
  }
  judgeStopped(phases.stopped ?? [], shards, pops.some(consumerPopFailed), { livenessStart: phases.livenessStart, recoveryBoundMs: settings.recoveryBoundMs, boundMs, loopsFollowed: phases.stopped !== undefined }, pops, new Set(pops.filter(consumerPopFailed).flatMap((p) => (p.shard === undefined ? [] : [p.shard]))), out);
  return judgeShardSets(shards, pops, boundMs, out);
}

/** A pop by the schedule that did not return ok: a store error reached a consumer. */
export const consumerPopFailed = (p: PopOp): boolean => p.via === 'schedule' && p.outcome !== 'ok';

/** The properties judged over the consumer loops that ended on their own (keeps consuming): a loop over the property table. */
export function judgeStopped(
  stopped: readonly StoppedConsumer[],
  shards: ShardSets,
  errorReachedConsumer: boolean,
  recovery: { readonly livenessStart: number; readonly recoveryBoundMs: number; readonly boundMs: number; readonly loopsFollowed: boolean },
  pops: readonly PopOp[],
  erred: ReadonlySet<string>,
  out: Judged,
): void {
  const asking = new Map<string, PopOp[]>();
  for (const p of pops) {
    if (p.via !== 'schedule' || p.outcome !== 'ok' || p.shard === undefined) continue;
    const list = asking.get(p.shard);
    if (list) list.push(p);
    else asking.set(p.shard, [p]);
  }
  for (const module of STOPS_JUDGES) {
    module.judgeStops!({
      stopped,
      shards,
      errorReachedConsumer,
      ...recovery,
      asking,
      erred,
      ...reportsOf(module, out),
    });
  }
}

/** Counts of messages and operations that the report states (not findings). */
interface Tallies {
  pushed: number;
  delivered: number;
  acked: number;
  deliveries: number;
  unknownOps: number;
}

export const noTallies = (): Tallies => ({ pushed: 0, delivered: 0, acked: 0, deliveries: 0, unknownOps: 0 });

/** One operation's part of the tallies. */
export function tallyOp(op: HistoryOp, t: Tallies): void {
  if (op.type === 'deliver') t.deliveries++;
  if (op.outcome === 'unknown') t.unknownOps++;
}

/** One message's part of the tallies. */
export function tallyMessage(m: MessageOps, t: Tallies): void {
  // Loops, not closures: this runs for every message of a history of millions.
  for (const p of m.pushes) {
    if (p.outcome === 'ok' && mayHaveCreated(p)) {
      t.pushed++;
      break;
    }
  }
  if (m.deliveries.length > 0) t.delivered++;
  for (const a of m.acks) {
    if (a.outcome === 'ok') {
      t.acked++;
      break;
    }
  }
}

export const noFindings = (): Judged => ({ violations: [], latencies: [], exercised: nonePerProperty() });

/**
 * Decides what docs/CHECKER.md defines over one history: operations are grouped by message and each group judged on its
 * own; priority order and late are judged per shard when the settings state a delivery bound.
 */
export function checkHistory(history: readonly HistoryOp[], phases: RunPhases, settings: CheckerSettings): CheckReport {
  const { byId, pops } = groupById(history);
  const out = noFindings();
  const tallies = noTallies();
  for (const op of history) tallyOp(op, tallies);
  const judge = messageJudge(phases, settings, out, { popsAtEnd: popsInFlightAtEnd(pops, phases.end), popsRecorded: pops.length > 0 });
  for (const [id, m] of byId) {
    tallyMessage(m, tallies);
    judge(id, m);
  }
  const lateness = settings.deliveryBoundMs === undefined ? [] : judgeShards(byId, pops, phases, settings, settings.deliveryBoundMs, out);
  return reportOf(tallies, out, lateness);
}

/** The report from the tallies and findings (violations worst first, then in time order, then by id). */
export function reportOf(tallies: Tallies, out: Judged, lateness: readonly number[]): CheckReport {
  const { pushed, delivered, deliveries, acked, unknownOps } = tallies;
  const violations = out.violations.sort(worstFirst);
  const counts = zeroPerKind();
  const messagesAffected = zeroPerKind();
  const seen = new Set<string>();
  for (const v of violations) {
    counts[v.kind]++;
    const breaks = VIOLATION_KINDS[v.kind].breaks;
    if (breaks) out.exercised[breaks] = true;
    const key = `${v.kind}\u0000${v.id}`;
    if (!seen.has(key)) {
      seen.add(key);
      messagesAffected[v.kind]++;
    }
  }
  const latency = figuresOf(out.latencies);
  return {
    pushed,
    delivered,
    deliveries,
    acked,
    unknownOps,
    violations,
    counts,
    messagesAffected,
    latency: { p50: latency.p50, p99: latency.p99 },
    lateness: figuresOf(lateness),
    properties: propertiesFrom(counts),
    exercised: out.exercised,
  };
}

/** Properties that only the end of a run can decide (what must have happened by then). */
const DECIDED_AT_THE_END: readonly PropertyName[] = ['atLeastOnce', 'unackRecovery', 'deliveredPromptly'];

/**
 * The report of a run that stopped before its end (a script or the run past its budget, a twin that
 * differs from its Lua), judged over the history up to the stop: what only the end could decide is
 * dropped (the run never got there), and the stop is a finding of its own.
 */
export function reportOfStoppedRun(report: CheckReport, stop: Violation): CheckReport {
  const violations = [...report.violations.filter((v) => !DECIDED_AT_THE_END.includes(VIOLATION_KINDS[v.kind].breaks as PropertyName)), stop].sort(
    (a, b) => a.t - b.t || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0),
  );
  const counts = zeroPerKind();
  const messagesAffected = zeroPerKind();
  const seen = new Set<string>();
  for (const v of violations) {
    counts[v.kind]++;
    const key = `${v.kind}\u0000${v.id}`;
    if (!seen.has(key)) {
      seen.add(key);
      messagesAffected[v.kind]++;
    }
  }
  const exercised = { ...report.exercised };
  for (const p of DECIDED_AT_THE_END) exercised[p] = false;
  for (const v of violations) {
    const breaks = VIOLATION_KINDS[v.kind].breaks;
    if (breaks) exercised[breaks] = true;
  }
  return { ...report, violations, counts, messagesAffected, properties: propertiesFrom(counts), exercised };
}
