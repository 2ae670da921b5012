import type { CheckerSettings, DeliverOp, HistoryOp, PopOp, RunPhases, StoppedConsumer } from './history.js';
import { decidingOps, delays, earliestDue, latestDue, visibilityOps } from './due-time.js';
import { freeIntervals, unknownPopsReaching, type FreeInterval } from './free-intervals.js';
import { holdsOf, type Hold } from './holds.js';
import { judgeLate, latenessOf, waitingPops } from './late.js';
import { groupById, mayHaveApplied, mayHaveCreated, placeOf, prioritiesAt, shardAt, type MessageOps } from './message-ops.js';
import { judgePriority } from './priority-order.js';
import { nonePerProperty, propertiesFrom, VIOLATION_KINDS, worstFirst, zeroPerKind, type PropertyName, type ViolationKind } from './properties.js';

export interface Violation {
  readonly kind: ViolationKind;
  readonly id: string;
  /** When it became a violation (a delivery's return, a recovery deadline, the end of the run). */
  readonly t: number;
  readonly processes: readonly string[];
  readonly detail: string;
}

/** p50 / p99 / max of a set of durations (ms), and how many there were. */
export interface Figures {
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

export function figuresOf(values: readonly number[]): Figures {
  const sorted = [...values].sort((a, b) => a - b);
  return { count: sorted.length, p50: percentile(sorted, 50), p99: percentile(sorted, 99), max: sorted.length === 0 ? 0 : sorted[sorted.length - 1]! };
}

export interface Judged {
  readonly violations: Violation[];
  readonly latencies: number[];
  readonly exercised: Record<PropertyName, boolean>;
}

type Found = (kind: ViolationKind, t: number, processes: string[], detail: string) => void;

/** What judging one message needs to know of the whole history. */
export interface HistoryContext {
  /** The unknown pops still in flight when the history ended (any message's; see judgeLoss). */
  readonly popsAtEnd?: readonly PopOp[];
  /** Whether the history records pop calls: then, with a delivery bound, recovery is judged against them (see judgeRecovery). */
  readonly popsRecorded?: boolean;
}

/** Every per-message definition of docs/CHECKER.md §2 and §3 over the operations of one message. */
export function judgeMessage(id: string, m: MessageOps, phases: RunPhases, settings: CheckerSettings, out: Judged, context: HistoryContext = {}): void {
  const found: Found = (kind, t, processes, detail) => out.violations.push({ kind, id, t, processes, detail });
  const holds = holdsOf(m);
  if (m.deliveries.length > 0) out.exercised.noPhantoms = true;

  if (m.deliveries.length > 1) {
    found('duplicate', m.deliveries[1]!.completedAt, m.deliveries.map((d) => d.process), `delivered ${m.deliveries.length} times`);
  }
  if (m.pushes.length === 0) {
    for (const d of m.deliveries) found('unexpected', d.completedAt, [d.process], 'delivered but never pushed');
    return;
  }
  if (m.pushes.some((p) => p.outcome === 'ok')) out.exercised.atLeastOnce = true;

  // Double pop: delivered while a delivery to another holder is still held.
  holds.forEach((h2, i) => {
    const h1 = holds.slice(0, i).find((h) => h.d.process !== h2.d.process && h2.d.completedAt < h.until);
    if (h1) {
      found(
        'double-pop',
        h2.d.completedAt,
        [h1.d.process, h2.d.process],
        `delivered to ${h2.d.process} at ${h2.d.completedAt} while ${h1.d.process} held it (popped at ${h1.d.completedAt}, held until ${h1.until})`,
      );
    }
  });
  if (holds.some((h) => h.until < (h.ack?.completedAt ?? Infinity) && h.until < phases.end)) out.exercised.noDoublePop = true;

  judgeResurrection(m, holds, found, out.exercised);
  judgeDueTimes(m, found, out);
  judgeLoss(id, m, holds, context.popsAtEnd ?? [], phases, settings, found);
  judgeRecovery(m, holds, phases, settings, found, out.exercised, settings.deliveryBoundMs !== undefined && context.popsRecorded === true);
}

/**
 * Resurrection: a delivery whose pop was invoked after an ack or remove of it returned ok, with no
 * push or ensure of it that may have landed in between.
 */
function judgeResurrection(m: MessageOps, holds: readonly Hold[], found: Found, exercised: Record<PropertyName, boolean>): void {
  const finals = [...m.acks.filter((a) => a.outcome === 'ok'), ...m.removes.filter((r) => r.outcome === 'ok')];
  if (finals.length === 0) return;
  const lateAck = holds.some((h) => h.ack?.outcome === 'ok' && h.ack.completedAt > h.leaseEnd);
  if (m.removes.some((r) => r.outcome === 'ok') || m.deliveries.length > 1 || lateAck) exercised.acksAreFinal = true;
  const creators = m.pushes.filter(mayHaveCreated);
  for (const d of m.deliveries) {
    const final = finals.find((a) => a.completedAt < d.invokedAt && !creators.some((p) => p.completedAt >= a.invokedAt && p.invokedAt < d.completedAt));
    if (final) found('resurrection', d.completedAt, [d.process], `delivered at ${d.completedAt} after ${final.type === 'ack' ? 'an ack' : 'a remove'} returned at ${final.completedAt}`);
  }
}

/**
 * Early deliveries and latency (docs/CHECKER.md §2.2). A delivery by the schedule is early when its pop returned
 * before the earliest due time any deciding push, ensure, reschedule or release allows.
 */
function judgeDueTimes(m: MessageOps, found: Found, out: Judged): void {
  const visible = visibilityOps(m);
  let lastDecider: unknown = null;
  for (const d of m.deliveries) {
    if ((d.via ?? 'schedule') !== 'schedule') continue;
    // No operation invoked before the pop returned could have made the message visible: only the
    // later ones may explain it, and each is due no earlier than its invocation, so the delivery came
    // before every due time the history allows (early unless one is due at that very instant). Found by
    // the brute-force oracle: push m at 0 (+150 ms), a pop invoked at -1 returning m at 0 was let pass.
    const before = decidingOps(m, visible, d.invokedAt, d.completedAt);
    const deciding = before.length > 0 ? before : visible;
    if (deciding.length === 0) continue;
    const due = Math.min(...deciding.map(earliestDue));
    if (deciding.some(delays)) out.exercised.onTime = true;
    if (d.completedAt < due) found('early', d.completedAt, [d.process], `delivered at ${d.completedAt}, due at ${due}`);
    // Latency of the first delivery after the operation that set the due time.
    const decider = deciding.reduce((a, b) => (b.invokedAt > a.invokedAt ? b : a));
    if (decider !== lastDecider) out.latencies.push(d.completedAt - due);
    lastDecider = decider;
  }
}

/**
 * At-least-once is about processing: the latest push that returned ok must be followed by an ack
 * that returned ok or unknown, or a remove that may have applied, by the end of the run. A message
 * not yet due by the end (its latest due time plus the delivery bound) is not owed. Nor is one still
 * held when the history ends (its holder may yet ack it) or one that a pop still in flight at the end
 * may have taken: whether it is processed is unknown, not lost (see stillOpenAtEnd).
 */
function judgeLoss(id: string, m: MessageOps, holds: readonly Hold[], popsAtEnd: readonly PopOp[], phases: RunPhases, settings: CheckerSettings, found: Found): void {
  const okPushes = m.pushes.filter((p) => p.outcome === 'ok' && mayHaveCreated(p));
  if (okPushes.length === 0) return;
  const last = okPushes.reduce((a, b) => (b.invokedAt > a.invokedAt ? b : a));
  const discharged = m.acks.some((a) => mayHaveApplied(a) && a.completedAt >= last.invokedAt) || m.removes.some((r) => mayHaveApplied(r) && r.completedAt >= last.invokedAt);
  if (discharged) return;
  const deciding = decidingOps(m, visibilityOps(m), phases.end, phases.end);
  const dueBy = Math.max(latestDue(last), ...deciding.map(latestDue));
  if (dueBy + (settings.deliveryBoundMs ?? 0) > phases.end) return;
  if (stillOpenAtEnd(id, m, holds, popsAtEnd, last, phases.end)) return;
  const after = m.deliveries.filter((d) => d.completedAt >= last.invokedAt);
  if (after.length === 0) {
    found('lost-never-delivered', phases.end, [last.process], `pushed at ${last.completedAt}, never delivered`);
  } else {
    const endings = after.map((d) => d.process).join(', ');
    found('lost-after-delivery', phases.end, [last.process, ...after.map((d) => d.process)], `pushed at ${last.completedAt}, delivered to ${endings}, never acked`);
  }
}

/**
 * Whether the message's processing since `last` (its latest ok push) was still open when the history
 * ended: a delivery since then still held at the end (not acked, released or removed, its lease not
 * yet over), or a pop in flight at the end that could have taken it (its shard, any shard, or it by id).
 */
export function stillOpenAtEnd(id: string, m: MessageOps, holds: readonly Hold[], popsAtEnd: readonly PopOp[], last: { readonly invokedAt: number }, end: number): boolean {
  if (holds.some((h) => h.d.completedAt >= last.invokedAt && !h.ack && !h.release && h.until >= end)) return true;
  if (popsAtEnd.length === 0) return false;
  return unknownPopsReaching(popsAtEnd, id, placeOf(m).shard).length > 0;
}

/** The unknown pops of a history still in flight at its end (their completion is the end). */
export function popsInFlightAtEnd(pops: readonly PopOp[], end: number): PopOp[] {
  return pops.filter((p) => p.outcome === 'unknown' && p.completedAt >= end);
}

/** A hold that ended without an ok/unknown ack, and what it owes (docs/CHECKER.md §2.5, slow recovery). */
interface Owed {
  readonly h: Hold;
  /** Its place among the message's holds (the later ones are its re-deliveries). */
  readonly index: number;
  /** How the hold ended, for the finding. */
  readonly ended: string;
  /** By when the reaper must have made it deliverable again: max(end of the hold, liveness start) + reaper period + recovery bound. */
  readonly from: number;
  /** The time rule's deadline: `from` + the delivery bound B. Only a deadline inside the run is judged. */
  readonly deadline: number;
}

/**
 * The holds of a message that ended without an ok/unknown ack (lease ran out, ack refused, released),
 * with what each owes, where that lies in the run.
 */
function owedOf(m: MessageOps, holds: readonly Hold[], phases: RunPhases, settings: CheckerSettings): Owed[] {
  const allowance = settings.reaperIntervalMs + settings.recoveryBoundMs;
  const out: Owed[] = [];
  holds.forEach((h, index) => {
    if (h.ack && mayHaveApplied(h.ack)) return;
    const released = h.release && mayHaveApplied(h.release) ? h.release.completedAt : null;
    // An unknown release may not have applied: the lease still runs, so the later of the two bounds
    // what is owed (never blame an unknown). Found by a unit test: release unknown at 2100, lease to
    // 2500, re-delivered at 2900 was a slow recovery.
    const holdEnd = h.release?.outcome === 'unknown' ? Math.max(h.release.completedAt, h.leaseEnd) : (released ?? h.leaseEnd);
    let from = Math.max(holdEnd, phases.livenessStart) + allowance;
    const bound = settings.deliveryBoundMs ?? 0;
    // A reschedule that may have applied after the delivery (the reaper re-queued the message, then
    // its holder rescheduled it) makes it due later: not owed before that due time (docs/CHECKER.md §2.2 due
    // time; never blame an order the history allows). Counterexample: full-profile run seed
    // full-998036 (31 messages), m17's ok reschedule to +718 ms after its lease ran out.
    for (const r of m.reschedules) {
      if (mayHaveApplied(r) && r.invokedAt > h.d.completedAt && r.invokedAt <= from + bound) from = Math.max(from, latestDue(r) + allowance);
    }
    if (from + bound > phases.end) return;
    const ended = released !== null ? `released at ${released}` : h.ack ? `ack refused at ${h.ack.completedAt}` : `lease ended at ${h.leaseEnd}`;
    out.push({ h, index, ended, from, deadline: from + bound });
  });
  return out;
}

/** The latest push or ensure that may have created the life a delivery came from (-Infinity: none). */
function lifeStart(m: MessageOps, d: DeliverOp): number {
  return Math.max(-Infinity, ...m.pushes.filter((p) => mayHaveCreated(p) && p.invokedAt <= d.completedAt).map((p) => p.invokedAt));
}

/**
 * Un-ack recovery: a hold that ended without an ok/unknown ack (its lease ran out, its ack was refused,
 * or it was released) must be followed by another delivery (or an ack or remove of it). Judged where
 * its deadline — max(end of the hold, start of liveness) + reaper period + bound + delivery bound —
 * lies in the run. With pops in the history and a delivery bound (`onDemand`), the judgement is the
 * shards' (owedStretches): the queue owes the re-delivery to a consumer that asks for it, so a
 * message left waiting behind more urgent work while every consumer of its shard was busy is not a
 * slow recovery; only a pop of its shard that waited longer than B while it was owed is. Without them,
 * the deadline alone decides (a history that does not say when consumers asked).
 */
function judgeRecovery(m: MessageOps, holds: readonly Hold[], phases: RunPhases, settings: CheckerSettings, found: Found, exercised: Record<PropertyName, boolean>, onDemand: boolean): void {
  for (const o of owedOf(m, holds, phases, settings)) {
    exercised.unackRecovery = true;
    if (onDemand && shardOwed(m, o) !== undefined) continue;
    // Processed (or removed) since the push this delivery came from, by the deadline: nothing owed.
    const since = lifeStart(m, o.h.d);
    const inWindow = (t: number) => t >= since && t <= o.deadline;
    if (holds.slice(o.index + 1).some((n) => n.d.completedAt <= o.deadline)) continue;
    if (m.acks.some((a) => mayHaveApplied(a) && inWindow(a.completedAt))) continue;
    if (m.removes.some((r) => mayHaveApplied(r) && inWindow(r.completedAt))) continue;
    found('slow-recovery', o.deadline, [o.h.d.process], `delivery to ${o.h.d.process} (${o.ended}); not re-delivered by ${o.deadline}`);
  }
}

/** The shard a hold's re-delivery is owed on (its delivery's, else its life's), if known. */
function shardOwed(m: MessageOps, o: Owed): string | undefined {
  return o.h.d.shard ?? shardAt(m, o.h.d.completedAt);
}

/** A stretch in which a re-delivery was owed, on its shard: judged against the shard's waiting pops. */
export interface OwedStretch {
  readonly shard: string;
  readonly iv: FreeInterval;
  readonly holder: string;
  readonly ended: string;
}

/**
 * When each re-delivery was owed (judgeRecovery, on demand): from `from` until the message was taken
 * again, acked, removed or created anew (whichever came first), or the end of the run — except while
 * an unknown pop that could reach it may have leased it to nobody: from that pop's invocation until
 * such a lease (as long as the hold's) has ended and the allowance has passed again (never blame an
 * order the history allows).
 */
function owedStretches(id: string, m: MessageOps, holds: readonly Hold[], reaching: readonly PopOp[], phases: RunPhases, settings: CheckerSettings): OwedStretch[] {
  const out: OwedStretch[] = [];
  const allowance = settings.reaperIntervalMs + settings.recoveryBoundMs;
  for (const o of owedOf(m, holds, phases, settings)) {
    const shard = shardOwed(m, o);
    if (shard === undefined) continue;
    const since = lifeStart(m, o.h.d);
    let to = phases.end;
    for (const n of holds.slice(o.index + 1)) to = Math.min(to, n.d.invokedAt);
    for (const a of [...m.acks, ...m.removes]) if (mayHaveApplied(a) && a.completedAt >= since) to = Math.min(to, a.invokedAt);
    for (const p of m.pushes) if (mayHaveCreated(p) && p.invokedAt > o.h.d.completedAt) to = Math.min(to, p.invokedAt);
    const lease = o.h.d.leaseUntil - o.h.d.invokedAt;
    const gaps = reaching
      .filter((p) => p.completedAt > o.h.until && p.invokedAt < to)
      .map((p) => ({ from: p.invokedAt, to: p.completedAt + lease + allowance }))
      .sort((a, b) => a.from - b.from);
    let from = o.from;
    for (const g of gaps) {
      if (g.from > from) out.push({ shard, iv: { id, priority: 0, from, to: Math.min(g.from, to) }, holder: o.h.d.process, ended: o.ended });
      from = Math.max(from, g.to);
      if (from >= to) break;
    }
    if (to > from) out.push({ shard, iv: { id, priority: 0, from, to }, holder: o.h.d.process, ended: o.ended });
  }
  return out;
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

/** The stretches and deliveries of each shard, in the order their parts are added (the history's order of first appearance). */
export type ShardSets = Map<string, { free: FreeInterval[]; deliveries: DeliverOp[]; priorityOf: Map<DeliverOp, number>; owed: OwedStretch[] }>;

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

/** The definitions about a shard as a whole (docs/CHECKER.md §3: priority order, late), with the lateness figures. */
export function judgeShardSets(shards: ShardSets, pops: readonly PopOp[], boundMs: number, out: Judged): number[] {
  const lateness: number[] = [];
  for (const [shard, s] of shards) {
    const waiting = waitingPops(pops, shard);
    const late = judgeLate(waiting, s.free, boundMs);
    if (late.exercised) out.exercised.deliveredPromptly = true;
    for (const f of late.findings) {
      out.violations.push({
        kind: 'late',
        id: f.id,
        t: f.t,
        processes: f.processes,
        detail: `free and due on shard ${shard} while ${f.pops} pop(s) waited past the ${boundMs} ms bound (up to ${f.beyondMs.toFixed(0)} ms beyond it)`,
      });
    }
    const priority = judgePriority(s.deliveries, (d) => s.priorityOf.get(d) ?? 0, s.free, boundMs);
    if (priority.exercised) out.exercised.priorityOrder = true;
    for (const f of priority.findings) out.violations.push({ kind: 'priority-inversion', ...f });
    if (waiting.length > 0) for (const x of latenessOf(s.deliveries, s.free, waiting)) lateness.push(x);
    // Un-ack recovery on demand: a pop of the shard that waited longer than B while a re-delivery was owed.
    for (const f of judgeLate(waiting, s.owed.map((o) => o.iv), boundMs).findings) {
      const mine = s.owed.filter((x) => x.iv.id === f.id);
      const o = [...mine].reverse().find((x) => x.iv.from < f.t) ?? mine[0]!;
      out.violations.push({
        kind: 'slow-recovery',
        id: f.id,
        t: f.t,
        processes: [o.holder, ...f.processes],
        detail: `delivery to ${o.holder} (${o.ended}); owed again from ${o.iv.from}, while ${f.pops} pop(s) of shard ${shard} waited past the ${boundMs} ms bound without it (up to ${f.beyondMs.toFixed(0)} ms beyond it)`,
      });
    }
  }
  return lateness;
}

function judgeShards(byId: ReadonlyMap<string, MessageOps>, pops: readonly PopOp[], phases: RunPhases, settings: CheckerSettings, boundMs: number, out: Judged): number[] {
  const shards: ShardSets = new Map();
  for (const [id, m] of byId) {
    const part = shardPartOf(id, m, pops, phases, settings);
    if (part) addShardPart(shards, part);
  }
  judgeStopped(phases.stopped ?? [], shards, pops.some(consumerPopFailed), out);
  return judgeShardSets(shards, pops, boundMs, out);
}

/** A pop by the schedule that did not return ok: a store error reached a consumer. */
export const consumerPopFailed = (p: PopOp): boolean => p.via === 'schedule' && p.outcome !== 'ok';

/**
 * Keeps consuming (liveness): a consumer loop that ended on its own is a finding when its shard had a
 * message free and due at or after the end (work it left to nobody), named by the first such message.
 */
export function judgeStopped(stopped: readonly StoppedConsumer[], shards: ShardSets, errorReachedConsumer: boolean, out: Judged): void {
  if (stopped.length > 0 || errorReachedConsumer) out.exercised.keepsConsuming = true;
  for (const s of stopped) {
    const left = (shards.get(s.shard)?.free ?? []).filter((iv) => iv.to > s.at).sort((a, b) => Math.max(a.from, s.at) - Math.max(b.from, s.at) || (a.id < b.id ? -1 : 1))[0];
    if (!left) continue;
    const t = Math.max(left.from, s.at);
    out.violations.push({
      kind: 'consumer-stopped',
      id: left.id,
      t,
      processes: [s.process],
      detail: `consumer ${s.process} of shard ${s.shard} stopped at ${s.at}; ${left.id} was free and due there from ${t} to ${left.to}`,
    });
  }
}

/** Counts of messages and operations that the report states (not findings). */
export interface Tallies {
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
  if (m.pushes.some((p) => p.outcome === 'ok' && mayHaveCreated(p))) t.pushed++;
  if (m.deliveries.length > 0) t.delivered++;
  if (m.acks.some((a) => a.outcome === 'ok')) t.acked++;
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
  const atEnd = popsInFlightAtEnd(pops, phases.end);
  for (const [id, m] of byId) {
    tallyMessage(m, tallies);
    judgeMessage(id, m, phases, settings, out, { popsAtEnd: atEnd, popsRecorded: pops.length > 0 });
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
