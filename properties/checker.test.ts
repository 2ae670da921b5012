import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkHistory, reportOfStoppedRun } from '../src/model/checker.js';
import type { CheckerSettings, DeliveryVia, HistoryOp, Outcome, RunPhases } from '../src/model/history.js';
import { formatHistoryFile, HistoryFileError, parseHistoryFile } from '../src/model/history-file.js';
import { AtomicModel } from '../src/model/reference/atomic-model.js';
import { LegacyModel } from '../src/model/reference/legacy-model.js';
import { FAILURE_KINDS, kindsBreaking, PROPERTY_NAMES, VIOLATION_KIND_NAMES, zeroPerKind, type ViolationKind } from '../src/model/properties.js';

const SCALE = Number(process.env.DYNOQ_PROPERTY_SCALE ?? 1);
const phases = { livenessStart: 1_000, end: 10_000 };
const settings = { reaperIntervalMs: 100, recoveryBoundMs: 400 };
/** The same with a delivery bound B = 50 ms: priority order and late are judged (docs/CHECKER.md §2.4). */
const B = 50;
const bounded = { ...settings, deliveryBoundMs: B };
const check = (h: HistoryOp[], p = phases, s: CheckerSettings = settings) => checkHistory(h, p, s);
const kinds = (h: HistoryOp[], s: CheckerSettings = settings) => check(h, phases, s).counts;

const op = (type: 'ack' | 'remove', id: string, t: number, process: string, outcome: Outcome, invokedAt = t): HistoryOp => ({ type, id, invokedAt, completedAt: t, process, outcome });
const push = (id: string, t: number, delayMs = 0, outcome: Outcome = 'ok', invokedAt = t): HistoryOp => ({ type: 'push', invokedAt, completedAt: t, process: 'p', id, delayMs, outcome });
const deliver = (id: string, t: number, process: string, lease = 500, invokedAt = t): HistoryOp => ({ type: 'deliver', invokedAt, completedAt: t, process, id, outcome: 'ok', leaseUntil: invokedAt + lease });
const ack = (id: string, t: number, process: string, outcome: Outcome = 'ok', invokedAt = t) => op('ack', id, t, process, outcome, invokedAt);
const remove = (id: string, t: number, outcome: Outcome = 'ok') => op('remove', id, t, 'p', outcome);
const extend = (id: string, t: number, process: string, until: number, outcome: Outcome = 'ok'): HistoryOp => ({ type: 'extend', invokedAt: t, completedAt: t, process, id, outcome, leaseUntil: until });

/** A push with a priority on a shard (docs/CHECKER.md §1.1: a push records both). */
const pushTo = (id: string, t: number, shard: string, priority: number, delayMs = 0, outcome: Outcome = 'ok', invokedAt = t): HistoryOp => ({ type: 'push', invokedAt, completedAt: t, process: 'p', id, delayMs, priority, shard, outcome });
const ensure = (id: string, t: number, created: boolean | undefined, delayMs = 0, outcome: Outcome = 'ok', extra: { shard?: string; priority?: number } = {}): HistoryOp => ({ type: 'ensure', invokedAt: t, completedAt: t, process: 'op', id, delayMs, outcome, ...(created === undefined ? {} : { created }), ...extra });
const reschedule = (id: string, t: number, delayMs: number, outcome: Outcome = 'ok', invokedAt = t, process = 'op'): HistoryOp => ({ type: 'reschedule', invokedAt, completedAt: t, process, id, delayMs, outcome });
const release = (id: string, t: number, process: string, outcome: Outcome = 'ok', invokedAt = t): HistoryOp => ({ type: 'release', invokedAt, completedAt: t, process, id, outcome });
/** A delivery with how it was popped and from which shard. */
const deliverVia = (id: string, t: number, process: string, via: DeliveryVia, shard?: string, invokedAt = t, lease = 500): HistoryOp => ({ type: 'deliver', invokedAt, completedAt: t, process, id, outcome: 'ok', leaseUntil: invokedAt + lease, via, ...(shard === undefined ? {} : { shard }) });
/** One pop call by the schedule on a shard (its messages are deliver operations of their own). */
const pop = (process: string, shard: string, invokedAt: number, completedAt: number, delivered: number, outcome: Outcome = 'ok'): HistoryOp => ({ type: 'pop', process, via: 'schedule', shard, invokedAt, completedAt, outcome, delivered });

/** Exactly these finding counts, every other kind zero. */
const exactly = (h: HistoryOp[], expected: Partial<Record<ViolationKind, number>> = {}, s: CheckerSettings = settings) => expect(kinds(h, s)).toEqual({ ...zeroPerKind(), ...expected });

describe('the table of properties and kinds', () => {
  it('every property is broken by at least one kind, every failure kind breaks exactly one property', () => {
    for (const p of PROPERTY_NAMES) expect(kindsBreaking(p).length, p).toBeGreaterThan(0);
    expect(FAILURE_KINDS).toEqual(VIOLATION_KIND_NAMES.filter((k) => k !== 'duplicate'));
    expect(PROPERTY_NAMES).toEqual(['atLeastOnce', 'unackRecovery', 'noDoublePop', 'acksAreFinal', 'onTime', 'noPhantoms', 'priorityOrder', 'deliveredPromptly', 'twinsMatchLua', 'keepsConsuming']);
    expect(kindsBreaking('keepsConsuming')).toEqual(['consumer-stopped', 'not-resumed']);
    expect(kindsBreaking('priorityOrder')).toEqual(['priority-inversion']);
    expect(kindsBreaking('deliveredPromptly')).toEqual(['late']);
  });
  it('each property is false exactly when one of its kinds was found', () => {
    const cases: [HistoryOp[], string[], CheckerSettings?][] = [
      [[push('m', 0), deliver('m', 10, 'c1'), ack('m', 20, 'c1')], []],
      [[push('m', 0)], ['atLeastOnce']],
      [[push('m', 0), deliver('m', 10, 'c1'), deliver('m', 20, 'c2'), ack('m', 30, 'c2')], ['noDoublePop']],
      [[push('m', 0), deliver('m', 10, 'c1'), ack('m', 20, 'c1'), deliver('m', 800, 'c2')], ['acksAreFinal']],
      [[push('m', 0, 100), deliver('m', 50, 'c1'), ack('m', 60, 'c1')], ['onTime']],
      [[deliver('ghost', 10, 'c1')], ['noPhantoms']],
      [[push('s', 0), deliver('s', 2_000, 'c1'), deliver('s', 3_500, 'c2'), ack('s', 3_600, 'c2')], ['unackRecovery']],
      [[pushTo('b', 0, 's', 0), pushTo('a', 0, 's', 5), deliverVia('a', 110, 'c1', 'schedule', 's', 100), ack('a', 120, 'c1'), deliverVia('b', 200, 'c1', 'schedule', 's', 190), ack('b', 210, 'c1')], ['priorityOrder'], bounded],
      [[pushTo('m', 0, 's', 0), pop('c1', 's', 100, 300, 0), deliverVia('m', 400, 'c1', 'schedule', 's', 390), ack('m', 410, 'c1')], ['deliveredPromptly'], bounded],
    ];
    for (const [h, broken, s] of cases) {
      const props = check(h, phases, s).properties;
      expect(PROPERTY_NAMES.filter((p) => !props[p]), JSON.stringify(h)).toEqual(broken);
    }
  });
});

describe('history checker: docs/CHECKER.md §2 and §3, definition by definition', () => {
  it('held: a hold ends when the holder\'s ack returns, whatever its outcome', () => {
    // The audit's case: the same consumer gets its message again after its own ack was refused.
    exactly([push('m', 0), deliver('m', 10, 'c1'), ack('m', 20, 'c1', 'fail'), deliver('m', 100, 'c1'), ack('m', 110, 'c1')], { duplicate: 1 });
    // Another consumer after a refused ack: not a double pop either (the hold ended), only a duplicate.
    exactly([push('m', 0), deliver('m', 10, 'c1'), ack('m', 20, 'c1', 'fail'), deliver('m', 100, 'c2'), ack('m', 110, 'c2')], { duplicate: 1 });
    exactly([push('m', 0), deliver('m', 10, 'c1'), ack('m', 20, 'c1', 'unknown'), deliver('m', 100, 'c2'), ack('m', 110, 'c2')], { duplicate: 1 });
  });

  it('double pop needs two holders at once; the same holder again is not one', () => {
    exactly([push('m', 0), deliver('m', 10, 'c1'), deliver('m', 100, 'c2'), ack('m', 110, 'c2')], { 'double-pop': 1, duplicate: 1 });
    exactly([push('m', 0), deliver('m', 10, 'c1'), deliver('m', 100, 'c1'), ack('m', 110, 'c1')], { duplicate: 1 });
    // a crash does not end a hold: a replacement process inside the lease is a double pop
    exactly([push('m', 0), deliver('m', 10, 'c1'), deliver('m', 300, 'c1-restarted'), ack('m', 310, 'c1-restarted')], { 'double-pop': 1, duplicate: 1 });
    // same instant collides, the hold's last instant does not
    exactly([push('m', 0), deliver('m', 10, 'c1'), deliver('m', 10, 'c2'), ack('m', 20, 'c2')], { 'double-pop': 1, duplicate: 1 });
    exactly([push('m', 0), deliver('m', 10, 'c1'), deliver('m', 510, 'c2'), ack('m', 520, 'c2')], { duplicate: 1 });
  });

  it('an extend that returned ok while held moves the lease deadline; one that failed or came after does not', () => {
    const base = [push('m', 0), deliver('m', 10, 'c1')];
    exactly([...base, extend('m', 400, 'c1', 2_000), deliver('m', 800, 'c2'), ack('m', 900, 'c2')], { 'double-pop': 1, duplicate: 1 });
    exactly([...base, extend('m', 510, 'c1', 2_000), deliver('m', 800, 'c2'), ack('m', 900, 'c2')], { 'double-pop': 1, duplicate: 1 });
    exactly([...base, extend('m', 400, 'c1', 2_000, 'fail'), deliver('m', 800, 'c2'), ack('m', 900, 'c2')], { duplicate: 1 });
    exactly([...base, extend('m', 400, 'c1', 2_000, 'unknown'), deliver('m', 800, 'c2'), ack('m', 900, 'c2')], { duplicate: 1 });
    exactly([...base, extend('m', 600, 'c1', 2_000), deliver('m', 800, 'c2'), ack('m', 900, 'c2')], { duplicate: 1 });
  });

  it('lost is judged on processing, in two sub-kinds', () => {
    exactly([push('m', 0)], { 'lost-never-delivered': 1 });
    exactly([push('m', 0), deliver('m', 10, 'c1')], { 'lost-after-delivery': 1, 'slow-recovery': 1 });
    exactly([push('m', 0), deliver('m', 10, 'c1'), ack('m', 20, 'c1', 'fail')], { 'lost-after-delivery': 1, 'slow-recovery': 1 });
    // an ack that may have applied discharges it (never required, never blamed)
    exactly([push('m', 0), deliver('m', 10, 'c1'), ack('m', 20, 'c1', 'unknown')]);
    // a push that failed owes nothing; an unknown one neither (it may not exist)
    exactly([push('m', 0, 0, 'fail')]);
    exactly([push('m', 0, 0, 'unknown')]);
    // removed (ok or unknown) after the push: nothing owed; a failed remove changes nothing
    exactly([push('m', 0), remove('m', 5)]);
    exactly([push('m', 0), remove('m', 5, 'unknown')]);
    exactly([push('m', 0), remove('m', 5, 'fail')], { 'lost-never-delivered': 1 });
    // re-pushed after its ack: the new push owes its own processing
    exactly([push('m', 0), deliver('m', 10, 'c1'), ack('m', 20, 'c1'), push('m', 30)], { 'lost-never-delivered': 1 });
    expect(check([push('m', 0, 0, 'fail'), push('n', 0)]).pushed).toBe(1);
  });

  it('slow recovery: a hold ended without an ok/unknown ack must be re-delivered by max(lease, liveness) + allowance', () => {
    // lease ended in the safety phase: judged from the start of liveness
    exactly([push('s', 0), deliver('s', 100, 'c1'), deliver('s', 1_500, 'c2'), ack('s', 1_600, 'c2')], { duplicate: 1 });
    exactly([push('s', 0), deliver('s', 100, 'c1'), deliver('s', 1_501, 'c2'), ack('s', 1_600, 'c2')], { 'slow-recovery': 1, duplicate: 1 });
    // a refused ack ends the hold but the lease still runs to its deadline
    exactly([push('s', 0), deliver('s', 2_000, 'c1'), ack('s', 2_100, 'c1', 'fail'), deliver('s', 3_000, 'c2'), ack('s', 3_100, 'c2')], { duplicate: 1 });
    exactly([push('s', 0), deliver('s', 2_000, 'c1'), ack('s', 2_100, 'c1', 'fail'), deliver('s', 3_001, 'c2'), ack('s', 3_100, 'c2')], { 'slow-recovery': 1, duplicate: 1 });
    // an unknown ack of the holder: nothing required
    exactly([push('s', 0), deliver('s', 2_000, 'c1'), ack('s', 2_100, 'c1', 'unknown')]);
    // acked by anyone or removed by the deadline: nothing to recover
    exactly([push('s', 0), deliver('s', 2_000, 'c1'), ack('s', 3_000, 'c9')]);
    exactly([push('s', 0), deliver('s', 2_000, 'c1'), remove('s', 2_100)]);
    // a deadline after the end of the run is not judged; one exactly at the end is (and a lease that
    // runs to the end is still held then: not lost)
    exactly([push('s', 0), deliver('s', 9_400, 'c1')], { 'lost-after-delivery': 1 });
    exactly([push('s', 0), deliver('s', 9_500, 'c1')]);
    exactly([push('s', 0), deliver('s', 9_000, 'c1')], { 'slow-recovery': 1, 'lost-after-delivery': 1 });
  });

  it('a message still held when the history ends, or that a pop in flight at the end may have taken, is unknown, not lost', () => {
    // leased at 9_800 for 500 ms: its holder may still ack it when the history ends at 10_000
    exactly([push('m', 0), deliver('m', 9_800, 'c1')]);
    // the lease ran out before the end: dropped (and recovered too slowly)
    exactly([push('m', 0), deliver('m', 9_000, 'c1')], { 'lost-after-delivery': 1, 'slow-recovery': 1 });
    // released before the end: not held
    exactly([push('m', 0), deliver('m', 9_800, 'c1'), release('m', 9_900, 'c1')], { 'lost-after-delivery': 1 });
    // a pop of its shard in flight at the end (unknown, completing at the end) may have taken it
    exactly([pushTo('m', 0, 's', 0), pop('c1', 's', 9_900, 10_000, 0, 'unknown')]);
    // one of another shard, or one that returned before the end, may not
    exactly([pushTo('m', 0, 's', 0), pop('c1', 't', 9_900, 10_000, 0, 'unknown')], { 'lost-never-delivered': 1 });
    exactly([pushTo('m', 0, 's', 0), pop('c1', 's', 9_900, 9_950, 0, 'unknown')], { 'lost-never-delivered': 1 });
  });

  it('resurrection: delivered after an ack returned ok, with no push that may have landed in between', () => {
    exactly([push('m', 0), deliver('m', 10, 'c1'), ack('m', 20, 'c1'), deliver('m', 800, 'c2')], { resurrection: 1, duplicate: 1 });
    // invoked before the ack returned: not a resurrection
    exactly([push('m', 0), deliver('m', 10, 'c1'), ack('m', 20, 'c1'), deliver('m', 525, 'c2', 500, 15)], { duplicate: 1 });
    // a push (ok or unknown) in between makes it a new life; a failed push does not
    exactly([push('m', 0), deliver('m', 10, 'c1'), ack('m', 20, 'c1'), push('m', 30), deliver('m', 800, 'c2'), ack('m', 810, 'c2')], { duplicate: 1 });
    exactly([push('m', 0), deliver('m', 10, 'c1'), ack('m', 20, 'c1'), push('m', 30, 0, 'unknown'), deliver('m', 800, 'c2'), ack('m', 810, 'c2')], { duplicate: 1 });
    exactly([push('m', 0), deliver('m', 10, 'c1'), ack('m', 20, 'c1'), push('m', 30, 0, 'fail'), deliver('m', 800, 'c2'), ack('m', 810, 'c2')], { resurrection: 1, duplicate: 1 });
    // an unknown ack never makes a resurrection
    exactly([push('m', 0), deliver('m', 10, 'c1'), ack('m', 20, 'c1', 'unknown'), deliver('m', 800, 'c2'), ack('m', 810, 'c2')], { duplicate: 1 });
  });

  it('early: before push invocation + delay on the true clock; a failed push sets no due time', () => {
    exactly([push('m', 0, 100), deliver('m', 50, 'c1'), ack('m', 60, 'c1')], { early: 1 });
    exactly([push('m', 0, 100), deliver('m', 100, 'c1'), ack('m', 110, 'c1')]);
    exactly([push('m', 0, 100, 'unknown'), deliver('m', 50, 'c1'), ack('m', 60, 'c1')], { early: 1 });
    exactly([push('m', 0, 100, 'fail'), push('m', 10, 0), deliver('m', 50, 'c1'), ack('m', 60, 'c1')]);
    // a second push before the first is consumed keeps the earlier due time; after an ok ack it starts afresh
    exactly([push('m', 0, 100), push('m', 10, 500), deliver('m', 150, 'c1'), ack('m', 160, 'c1')]);
    exactly([push('m', 0), deliver('m', 10, 'c1'), ack('m', 20, 'c1'), push('m', 30, 500), deliver('m', 100, 'c2'), ack('m', 110, 'c2')], { early: 1, duplicate: 1 });
  });

  it('unexpected: delivered, no push of that id with any outcome', () => {
    exactly([deliver('ghost', 10, 'c1')], { unexpected: 1 });
    exactly([push('m', 0, 0, 'fail'), deliver('m', 10, 'c1'), ack('m', 20, 'c1')]);
  });

  it('report: messages (not events), unknown operations, affected messages per kind, processes and details', () => {
    const r = check([push('a', 0, 100), deliver('a', 130, 'c1'), ack('a', 140, 'c1'), push('b', 0), deliver('b', 10, 'c1'), ack('b', 20, 'c1', 'fail'), deliver('b', 600, 'c2'), ack('b', 610, 'c2'), push('c', 0, 0, 'unknown')]);
    expect([r.pushed, r.delivered, r.deliveries, r.acked, r.unknownOps]).toEqual([2, 2, 3, 2, 1]);
    expect(r.latency).toEqual({ p50: 30, p99: 30 });
    const dp = check([push('m', 0), deliver('m', 10, 'c1'), deliver('m', 100, 'c2'), deliver('m', 200, 'c2')]);
    expect(dp.violations.find((v) => v.kind === 'double-pop')).toMatchObject({ id: 'm', t: 100, processes: ['c1', 'c2'], detail: 'delivered to c2 at 100 while c1 held it (popped at 10, held until 510)' });
    expect(dp.counts['double-pop']).toBe(2);
    expect(dp.messagesAffected['double-pop']).toBe(1);
    const slow = check([push('s', 0), deliver('s', 2_000, 'c1'), deliver('s', 3_500, 'c2'), ack('s', 3_600, 'c2')]);
    expect(slow.violations.find((v) => v.kind === 'slow-recovery')).toMatchObject({ id: 's', t: 3_000, processes: ['c1'], detail: 'delivery to c1 (lease ended at 2500); not re-delivered by 3000' });
    const lost = check([push('l', 7)]);
    expect(lost.violations[0]).toMatchObject({ kind: 'lost-never-delivered', id: 'l', t: phases.end, processes: ['p'], detail: 'pushed at 7, never delivered' });
    expect(check([push('b', 0), push('c', 0), push('a', 0)]).violations.map((v) => v.id)).toEqual(['a', 'b', 'c']);
  });
});

describe('history checker: the whole API (docs/CHECKER.md §1.1), definition by definition', () => {
  it('early is judged against the latest reschedule: an ok one overtakes earlier pushes', () => {
    // push due at once, then an ok reschedule to +500 (due 600) that returned before the pop began
    exactly([push('m', 0), reschedule('m', 101, 500, 'ok', 100), deliver('m', 210, 'c1', 500, 200), ack('m', 220, 'c1')], { early: 1 });
    exactly([push('m', 0), reschedule('m', 101, 500, 'ok', 100), deliver('m', 610, 'c1', 500, 600), ack('m', 620, 'c1')]);
    // a failed reschedule changes nothing
    exactly([push('m', 0), reschedule('m', 101, 500, 'fail', 100), deliver('m', 210, 'c1', 500, 200), ack('m', 220, 'c1')]);
  });

  it('an unknown reschedule only offers an earlier due time; a concurrent one may not have applied yet', () => {
    // unknown, earlier: the message may be due at 100 instead of 1000
    exactly([push('m', 0, 1_000), reschedule('m', 100, 0, 'unknown'), deliver('m', 200, 'c1'), ack('m', 210, 'c1')]);
    // unknown, later: the push's due time (0) still explains the delivery
    exactly([push('m', 0), reschedule('m', 100, 1_000, 'unknown'), deliver('m', 300, 'c1'), ack('m', 310, 'c1')]);
    // ok but still in flight when the pop began: it may not have applied
    exactly([push('m', 0), reschedule('m', 400, 1_000, 'ok', 100), deliver('m', 300, 'c1', 500, 200), ack('m', 310, 'c1')]);
    // an ok reschedule invoked after the pop returned does not decide it
    exactly([push('m', 0), deliver('m', 300, 'c1', 500, 200), reschedule('m', 400, 1_000, 'ok', 350), ack('m', 410, 'c1')]);
  });

  it('a release makes the message visible at its invocation; it ends the hold like an ack', () => {
    // ok release by the holder at [100, 120]; c2 gets it at 110: the release may have applied at 100
    exactly([push('m', 0), deliver('m', 10, 'c1'), release('m', 120, 'c1', 'ok', 100), deliver('m', 110, 'c2', 500, 105), ack('m', 130, 'c2')], { duplicate: 1 });
    // a failed release had no effect until it returned: c2 at 110 is a double pop; after 120 it is not
    exactly([push('m', 0), deliver('m', 10, 'c1'), release('m', 120, 'c1', 'fail', 100), deliver('m', 110, 'c2', 500, 105), ack('m', 130, 'c2')], { 'double-pop': 1, duplicate: 1 });
    exactly([push('m', 0), deliver('m', 10, 'c1'), release('m', 120, 'c1', 'fail', 100), deliver('m', 130, 'c2'), ack('m', 140, 'c2')], { duplicate: 1 });
    // a release by someone else is not the holder's: c1 still holds
    exactly([push('m', 0), deliver('m', 10, 'c1'), release('m', 100, 'c9'), deliver('m', 110, 'c2'), ack('m', 130, 'c2')], { 'double-pop': 1, duplicate: 1 });
    // a release makes a delayed message due now: the holder's release at 200 of a message due at 5000
    exactly([push('m', 0, 0), reschedule('m', 1, 5_000, 'unknown'), deliver('m', 10, 'c1'), release('m', 200, 'c1'), deliver('m', 300, 'c2'), ack('m', 310, 'c2')], { duplicate: 1 });
  });

  it('a released message not re-delivered within the recovery bound is a slow recovery', () => {
    // released at 2100 (after liveness began): re-delivery owed by 2100 + 100 + 400 = 2600
    exactly([push('m', 0), deliver('m', 2_000, 'c1'), release('m', 2_100, 'c1'), deliver('m', 2_600, 'c2'), ack('m', 2_610, 'c2')], { duplicate: 1 });
    exactly([push('m', 0), deliver('m', 2_000, 'c1'), release('m', 2_100, 'c1'), deliver('m', 2_601, 'c2'), ack('m', 2_610, 'c2')], { 'slow-recovery': 1, duplicate: 1 });
    exactly([push('m', 0), deliver('m', 2_000, 'c1'), release('m', 2_100, 'c1')], { 'slow-recovery': 1, 'lost-after-delivery': 1 });
    // an unknown release may not have applied: the lease still bounds it (ends 2500, owed by 3000)
    exactly([push('m', 0), deliver('m', 2_000, 'c1'), release('m', 2_100, 'c1', 'unknown'), deliver('m', 2_900, 'c2'), ack('m', 2_910, 'c2')], { duplicate: 1 });
    // a removed message is owed nothing
    exactly([push('m', 0), deliver('m', 2_000, 'c1'), release('m', 2_100, 'c1'), remove('m', 2_200)]);
    // an ok reschedule after the lease ran out moves what is owed to its due time (+ allowance)
    exactly([push('m', 0), deliver('m', 2_000, 'c1'), reschedule('m', 2_600, 1_000), deliver('m', 4_000, 'c2'), ack('m', 4_010, 'c2')], { duplicate: 1 });
    exactly([push('m', 0), deliver('m', 2_000, 'c1'), reschedule('m', 2_600, 1_000), deliver('m', 4_200, 'c2'), ack('m', 4_210, 'c2')], { 'slow-recovery': 1, duplicate: 1 });
  });

  it('deliveries by id or by predicate are never early', () => {
    exactly([push('m', 0, 1_000), deliverVia('m', 50, 'c1', 'id'), ack('m', 60, 'c1')]);
    exactly([push('m', 0, 1_000), deliverVia('m', 50, 'c1', 'predicate'), ack('m', 60, 'c1')]);
    exactly([push('m', 0, 1_000), deliverVia('m', 50, 'c1', 'schedule'), ack('m', 60, 'c1')], { early: 1 });
  });

  it('removes are final: delivered after an ok remove, with no push or ensure in between, is a resurrection', () => {
    exactly([push('m', 0), remove('m', 50), deliver('m', 100, 'c1'), ack('m', 110, 'c1')], { resurrection: 1 });
    exactly([push('m', 0), remove('m', 50, 'unknown'), deliver('m', 100, 'c1'), ack('m', 110, 'c1')]);
    exactly([push('m', 0), remove('m', 50, 'fail'), deliver('m', 100, 'c1'), ack('m', 110, 'c1')]);
    exactly([push('m', 0), remove('m', 50), ensure('m', 60, true), deliver('m', 100, 'c1'), ack('m', 110, 'c1')]);
    // a pop invoked before the remove returned is not one
    exactly([push('m', 0), remove('m', 50, 'ok', ), deliver('m', 60, 'c1', 500, 40), ack('m', 70, 'c1')]);
  });

  it('a remove deletes the message with its lease: it ends the hold, and a later ensure starts a new life another consumer may take', () => {
    // The explored finding, in small: c1's pop [5, 12] took m, a remove [10, 11] deleted it, an ensure
    // created it again at 300 and c2 took it at 400 inside c1's old lease: no double pop.
    exactly([push('m', 0), deliver('m', 12, 'c1', 1_000, 5), remove('m', 11), ensure('m', 300, true), deliver('m', 400, 'c2'), ack('m', 410, 'c2'), ack('m', 900, 'c1', 'fail')], { duplicate: 1 });
    // an unknown remove may have deleted it: never blamed
    exactly([push('m', 0), deliver('m', 12, 'c1', 1_000, 5), remove('m', 11, 'unknown'), ensure('m', 300, undefined, 0, 'unknown'), deliver('m', 400, 'c2'), ack('m', 410, 'c2')], { duplicate: 1 });
    // a failed remove deleted nothing: c1 still held it
    exactly([push('m', 0), deliver('m', 12, 'c1', 1_000, 5), remove('m', 11, 'fail'), deliver('m', 400, 'c2'), ack('m', 410, 'c2')], { 'double-pop': 1, duplicate: 1 });
    // a remove that returned before the pop began came before it: the hold it did not end still runs
    exactly([push('m', 0), remove('m', 3), ensure('m', 4, true), deliver('m', 12, 'c1', 1_000, 5), deliver('m', 400, 'c2'), ack('m', 410, 'c2')], { 'double-pop': 1, duplicate: 1 });
  });

  it('an ack ends the hold as early as it may have applied when the message may then have been created anew', () => {
    // Found in a simulated run (durable acks on a primary with replicas): c1's ack [293, 312] of m, an
    // ensure [302, 323] that created m again, and c2's pop [204, 306] of it. The ensure created m, so
    // the ack had deleted it first; ack, ensure, pop is an order the times allow: no double pop.
    const ensureAt = (t: number, invokedAt: number, created: boolean | undefined, outcome: Outcome = 'ok'): HistoryOp => ({ type: 'ensure', invokedAt, completedAt: t, process: 'op', id: 'm', delayMs: 0, outcome, ...(created === undefined ? {} : { created }) });
    const base = [push('m', 134, 0, 'ok', 125), deliver('m', 207, 'c1', 1_000, 103)];
    const c2 = [deliver('m', 306, 'c2', 1_000, 204), ack('m', 368, 'c2', 'ok', 358)];
    exactly([...base, ack('m', 312, 'c1', 'ok', 293), ensureAt(323, 302, true), ...c2], { duplicate: 1 });
    // the queue's own rules allow that order: the ack deletes m, the ensure creates it, a pop takes it
    const model = new AtomicModel(1_000);
    model.push([{ id: 'm', payload: '', timeout: 0, priority: 0 }]);
    const [held] = model.pop(1);
    expect(model.ack('m', held!.token)).toBe(true);
    expect(model.ensure({ id: 'm', payload: '', timeout: 0, priority: 0 })).toBe(true);
    expect(model.pop(1).map((l) => l.id)).toEqual(['m']);
    // an unknown ack or ensure may have applied too: never blamed
    exactly([...base, ack('m', 312, 'c1', 'unknown', 293), ensureAt(323, 302, undefined, 'unknown'), ...c2], { duplicate: 1 });
    // still a double pop: the ack failed, the ensure found m there, no ensure, or the ensure began after c2's pop returned
    exactly([...base, ack('m', 312, 'c1', 'fail', 293), ensureAt(323, 302, undefined, 'unknown'), ...c2], { 'double-pop': 1, duplicate: 1 });
    exactly([...base, ack('m', 312, 'c1', 'ok', 293), ensureAt(323, 302, false), ...c2], { 'double-pop': 1, duplicate: 1 });
    exactly([...base, ack('m', 312, 'c1', 'ok', 293), ...c2], { 'double-pop': 1, duplicate: 1 });
    exactly([...base, ack('m', 312, 'c1', 'ok', 293), ensureAt(323, 307, true), ...c2], { 'double-pop': 1, duplicate: 1 });
    // the message's only creation made the delivered life: it cannot follow the ack
    exactly([push('m', 320, 0, 'ok', 100), deliver('m', 207, 'c1', 1_000, 103), ack('m', 312, 'c1', 'ok', 293), ...c2], { 'double-pop': 1, duplicate: 1 });
  });

  it('an ok reschedule, release, ack or remove found the message: it came after the only creation that may have made it, however they overlap', () => {
    // The queue's own rules: each is refused before the message exists, so returning ok it followed the
    // push, and an ok reschedule then decides the due time (both modes).
    const message = { id: 'm', payload: '', timeout: 879, priority: 0 };
    for (const model of [new AtomicModel(1_000), new LegacyModel(1_000)]) {
      expect([model.setTimeout('m', 1_816), model.release('m'), model.ack('m'), model.remove('m')]).toEqual([false, false, false, false]);
      model.push([message]);
      expect(model.setTimeout('m', 1_816)).toBe(true);
      model.now = 1_500;
      expect(model.pop(1)).toEqual([]);
      model.now = 1_817;
      expect(model.pop(1).map((l) => l.id)).toEqual(['m']);
    }
    // Found on the recommended primary-replica set-up (seed g3): m11 pushed [529, 540] (+879 ms, due by
    // 1419 by the push alone) and rescheduled ok [532, 534] (+1,816 ms): due no earlier than 2348. It
    // was counted free and due from 1419 and blamed for the pop of m1 (priority 9) at 1511 and a pop
    // waiting from 1470.
    const m11 = (r: Outcome) => [pushTo('m11', 540, 'b', 0, 879, 'ok', 529), reschedule('m11', 534, 1_816, r, 532), deliverVia('m11', 2_400, 'c1', 'schedule', 'b', 2_390), ack('m11', 2_410, 'c1')];
    const m1 = [pushTo('m1', 0, 'b', 9), deliverVia('m1', 1_520, 'c1', 'schedule', 'b', 1_511), ack('m1', 1_530, 'c1'), pop('c2', 'b', 1_470, 1_600, 0)];
    exactly([...m11('ok'), ...m1], {}, bounded);
    // a failed reschedule had no effect, so the push decides: an inversion and a late pop
    exactly([...m11('fail'), ...m1], { 'priority-inversion': 1, late: 1 }, bounded);
    // an unknown one may not have applied: m11 was never surely free
    exactly([...m11('unknown'), ...m1], {}, bounded);
    // another creation may have made the message the reschedule found, and the push may have come after it
    exactly([pushTo('m11', 2, 'b', 0, 0, 'ok', 0), ...m11('ok'), ...m1], { 'priority-inversion': 1, late: 1, duplicate: 0 }, bounded);
    // the same order makes a delivery before 2348 early, which the push alone (due from 1408) would allow
    exactly([pushTo('m11', 540, 'b', 0, 879, 'ok', 529), reschedule('m11', 534, 1_816, 'ok', 532), deliverVia('m11', 1_500, 'c1', 'schedule', 'b', 1_490), ack('m11', 1_510, 'c1')], { early: 1 }, bounded);
    // an ok release found the message its only push [0, 300] made (delivered at 20 in between): free from 300
    const released = [pushTo('m', 300, 's', 0, 0, 'ok', 0), deliverVia('m', 20, 'c1', 'schedule', 's', 10), release('m', 110, 'c1', 'ok', 100), pop('c2', 's', 300, 500, 0), deliverVia('m', 610, 'c2', 'schedule', 's', 600), ack('m', 620, 'c2')];
    exactly(released, { late: 1, duplicate: 1 }, bounded);
  });

  it('ensure: one that returned ok without creating has no effect; an unknown one may have created', () => {
    exactly([push('m', 0), deliver('m', 10, 'c1'), ack('m', 20, 'c1'), ensure('m', 30, false), deliver('m', 800, 'c2'), ack('m', 810, 'c2')], { resurrection: 1, duplicate: 1 });
    exactly([push('m', 0), deliver('m', 10, 'c1'), ack('m', 20, 'c1'), ensure('m', 30, true), deliver('m', 800, 'c2'), ack('m', 810, 'c2')], { duplicate: 1 });
    exactly([push('m', 0), deliver('m', 10, 'c1'), ack('m', 20, 'c1'), ensure('m', 30, undefined, 0, 'unknown'), deliver('m', 800, 'c2'), ack('m', 810, 'c2')], { duplicate: 1 });
    // an ensure that created owes processing; one that did not owes nothing (and sets no due time)
    exactly([ensure('m', 0, true)], { 'lost-never-delivered': 1 });
    exactly([ensure('m', 0, false)]);
    exactly([push('m', 0), ensure('m', 5, false, 1_000), deliver('m', 50, 'c1'), ack('m', 60, 'c1')]);
    expect(check([ensure('m', 0, false), ensure('n', 0, true)]).pushed).toBe(1);
  });
});

describe('history checker: priority order (docs/CHECKER.md §3), judged only with a delivery bound', () => {
  // b (priority 0) and a (priority 5) on shard s, both due at once.
  const both = [pushTo('b', 0, 's', 0), pushTo('a', 0, 's', 5)];
  const later = (t: number) => [deliverVia('b', t + 10, 'c1', 'schedule', 's', t), ack('b', t + 20, 'c1')];

  it('a less urgent message popped while a more urgent one was free and due for longer than B is an inversion', () => {
    exactly([...both, deliverVia('a', 110, 'c1', 'schedule', 's', 100), ack('a', 120, 'c1'), ...later(200)], { 'priority-inversion': 1 }, bounded);
    // without a bound it is not judged
    exactly([...both, deliverVia('a', 110, 'c1', 'schedule', 's', 100), ack('a', 120, 'c1'), ...later(200)], {}, settings);
    // b free and due for only B before a's pop (0 → 50): not one; for B + 1: one
    exactly([...both, deliverVia('a', 60, 'c1', 'schedule', 's', 50), ack('a', 70, 'c1'), ...later(200)], {}, bounded);
    exactly([...both, deliverVia('a', 61, 'c1', 'schedule', 's', 51), ack('a', 70, 'c1'), ...later(200)], { 'priority-inversion': 1 }, bounded);
  });

  it('b must stay free until a\'s pop returned: taken by a pop that began first, it was not waiting', () => {
    // b's delivery from a pop invoked before a's pop returned (the same pop, or a concurrent one)
    exactly([...both, deliverVia('b', 110, 'c2', 'schedule', 's', 100), deliverVia('a', 110, 'c1', 'schedule', 's', 100), ack('a', 120, 'c1'), ack('b', 120, 'c2')], {}, bounded);
    exactly([...both, deliverVia('b', 130, 'c2', 'schedule', 's', 105), deliverVia('a', 110, 'c1', 'schedule', 's', 100), ack('a', 120, 'c1'), ack('b', 140, 'c2')], {}, bounded);
  });

  it('a pop of no duration (a real one on loopback: began and returned in the same millisecond) that took b and a together passed nothing over (was: a priority inversion)', () => {
    // Seen on a real primary: one pop at t+2859 returned m25 (priority 3), m42 and m34 (priority 4) and was blamed for m34.
    exactly([...both, deliverVia('b', 100, 'c1', 'schedule', 's', 100), deliverVia('a', 100, 'c1', 'schedule', 's', 100), ack('a', 120, 'c1'), ack('b', 120, 'c1')], {}, bounded);
    // b taken at that instant by another consumer: not free when a's pop began either
    exactly([...both, deliverVia('b', 100, 'c2', 'schedule', 's', 100), deliverVia('a', 100, 'c1', 'schedule', 's', 100), ack('a', 120, 'c1'), ack('b', 120, 'c2')], {}, bounded);
    // b still free after that instant: an inversion, however short the pop
    exactly([...both, deliverVia('a', 100, 'c1', 'schedule', 's', 100), ack('a', 120, 'c1'), ...later(200)], { 'priority-inversion': 1 }, bounded);
  });

  it('only what is surely free counts: held, unknown, in-flight, other shards, equal priorities, by id', () => {
    const aPop = [deliverVia('a', 110, 'c1', 'schedule', 's', 100), ack('a', 120, 'c1')];
    // b held by c2 until 600
    exactly([...both, deliverVia('b', 5, 'c2', 'schedule', 's', 1), ...aPop, ack('b', 600, 'c2')], {}, bounded);
    // b's push unknown: it may not exist
    exactly([pushTo('b', 0, 's', 0, 0, 'unknown'), pushTo('a', 0, 's', 5), ...aPop], {}, bounded);
    // b's push still in flight when a was popped
    exactly([pushTo('b', 200, 's', 0, 0, 'ok', 0), pushTo('a', 0, 's', 5), ...aPop, ...later(300)], {}, bounded);
    // b not yet due (delay 500)
    exactly([pushTo('b', 0, 's', 0, 500), pushTo('a', 0, 's', 5), ...aPop, ...later(600)], {}, bounded);
    // b on another shard
    exactly([pushTo('b', 0, 't', 0), pushTo('a', 0, 's', 5), ...aPop, deliverVia('b', 210, 'c1', 'schedule', 't', 200), ack('b', 220, 'c1')], {}, bounded);
    // equal priorities: push order is not judged
    exactly([pushTo('b', 0, 's', 5), pushTo('a', 0, 's', 5), ...aPop, ...later(200)], {}, bounded);
    // a popped by id: a consumer asked for it
    exactly([...both, deliverVia('a', 110, 'c1', 'id', 's', 100), ack('a', 120, 'c1'), ...later(200)], {}, bounded);
    // an ok reschedule of b in flight when a was popped
    exactly([...both, reschedule('b', 150, 0, 'ok', 90), ...aPop, ...later(200)], {}, bounded);
  });

  it('a priority belongs to one life of a message: a later ensure with another priority changes nothing before it', () => {
    // b: priority 4; a: pushed at priority 0, popped before b could be, acked, then ensured again at 9
    const h = [pushTo('b', 0, 's', 4), pushTo('a', 0, 's', 0), deliverVia('a', 110, 'c1', 'schedule', 's', 100), ack('a', 120, 'c1'), ...later(200), ensure('a', 300, true, 0, 'ok', { shard: 's', priority: 9 }), deliverVia('a', 410, 'c1', 'schedule', 's', 400), ack('a', 420, 'c1')];
    exactly(h, { duplicate: 1 }, bounded);
    // and its shard too: waiting on shard t in its first life is not a wait on shard s
    const moved = [pushTo('b', 0, 't', 0), pushTo('a', 0, 's', 5), deliverVia('b', 160, 'c2', 'schedule', 't', 150), ack('b', 170, 'c2'), ensure('b', 300, true, 0, 'ok', { shard: 's', priority: 0 }), deliverVia('a', 110, 'c1', 'schedule', 's', 100), ack('a', 120, 'c1'), deliverVia('b', 410, 'c1', 'schedule', 's', 400), ack('b', 420, 'c1')];
    exactly(moved, { duplicate: 1 }, bounded);
  });
});

describe('history checker: un-ack recovery on demand (pops recorded, a delivery bound)', () => {
  // c1's lease on m ran out at 2_500: the reaper must have re-queued it by 2_500 + 100 + 400 = 3_000.
  const base = [pushTo('m', 0, 's', 9), deliverVia('m', 2_000, 'c1', 'schedule', 's')];
  const later = [deliverVia('m', 5_000, 'c2', 'schedule', 's', 4_990), ack('m', 5_010, 'c2')];

  it('a re-delivery owed while every consumer of its shard was busy is not slow: no pop asked for it', () => {
    // The explored client-crash finding, in small: re-delivered 2 s after the deadline, but no pop of
    // shard s waited meanwhile (the consumers worked through more urgent messages).
    exactly([...base, ...later, pop('c3', 's', 1_990, 2_000, 0)], { duplicate: 1 }, bounded);
    // without pops in the history the deadline alone decides, as before
    exactly([...base, ...later], { 'slow-recovery': 1, duplicate: 1 }, bounded);
  });

  it('a pop of its shard that waited longer than B while the re-delivery was owed, and returned without it, is a slow recovery', () => {
    exactly([...base, ...later, pop('c3', 's', 3_100, 3_300, 0)], { 'slow-recovery': 1, duplicate: 1 }, bounded);
    // waiting no longer than B, or on another shard, or before it was owed: not one
    exactly([...base, ...later, pop('c3', 's', 3_100, 3_150, 0)], { duplicate: 1 }, bounded);
    exactly([...base, ...later, pop('c3', 't', 3_100, 3_300, 0)], { duplicate: 1 }, bounded);
    exactly([...base, ...later, pop('c3', 's', 2_700, 3_040, 0)], { duplicate: 1 }, bounded);
    // a pop that may have taken it (unknown) may have leased it to nobody: not owed until that lease
    // (as long as c1's, 500 ms) ran out and the allowance passed again (3_020 + 500 + 500 = 4_020)
    exactly([...base, ...later, pop('c4', 's', 3_010, 3_020, 0, 'unknown'), pop('c3', 's', 3_100, 3_300, 0)], { duplicate: 1 }, bounded);
    exactly([...base, ...later, pop('c4', 's', 3_010, 3_020, 0, 'unknown'), pop('c3', 's', 4_100, 4_300, 0)], { 'slow-recovery': 1, duplicate: 1 }, bounded);
  });
});

describe('history checker: late (docs/CHECKER.md §3)', () => {
  const m = pushTo('m', 0, 's', 0);
  const taken = (t: number) => [deliverVia('m', t + 2, 'c1', 'schedule', 's', t), pop('c1', 's', t, t + 2, 1), ack('m', t + 10, 'c1')];

  it("one consumer's back-to-back empty pops are one wait: short polls add up to late", () => {
    // Each poll waits 40 ms, under B = 50; one after the other they wait 120 ms while m is free and due.
    exactly([m, pop('c1', 's', 100, 140, 0), pop('c1', 's', 140, 180, 0), pop('c1', 's', 180, 220, 0), ...taken(400)], { late: 1 }, bounded);
    // A pause of 5 ms between polls (or another consumer's polls) breaks the wait: no poll waited past B.
    exactly([m, pop('c1', 's', 100, 140, 0), pop('c1', 's', 145, 185, 0), pop('c1', 's', 190, 230, 0), ...taken(400)], {}, bounded);
    exactly([m, pop('c1', 's', 100, 140, 0), pop('c2', 's', 140, 180, 0), pop('c1', 's', 180, 220, 0), ...taken(400)], {}, bounded);
  });

  it('a pop of shard s waiting longer than B while a message of s was free and due, and returning without it, is late', () => {
    exactly([m, pop('c1', 's', 100, 300, 0), ...taken(400)], { late: 1 }, bounded);
    // waiting exactly B: not late
    exactly([m, pop('c1', 's', 100, 150, 0), ...taken(400)], {}, bounded);
    // not judged without a bound
    exactly([m, pop('c1', 's', 100, 300, 0), ...taken(400)], {}, settings);
    // a pop on another shard, or a pop by id, is not waiting for m
    exactly([m, pop('c1', 't', 100, 300, 0), ...taken(400)], {}, bounded);
    exactly([m, { ...pop('c1', 's', 100, 300, 0), via: 'id', id: 'x' } as HistoryOp, ...taken(400)], {}, bounded);
  });

  it('an unknown pop may have taken messages of its shard: they are not free while it ran', () => {
    exactly([m, pop('c9', 's', 90, 310, 0, 'unknown'), pop('c1', 's', 100, 300, 0), ...taken(400)], {}, bounded);
    // an unknown pop of another shard takes nothing of s
    exactly([m, pop('c9', 't', 90, 310, 0, 'unknown'), pop('c1', 's', 100, 300, 0), ...taken(400)], { late: 1 }, bounded);
  });

  it('free and due needs its due time passed, no hold, no ack or remove, nothing in flight', () => {
    // due at 500: a pop waiting 100–300 is not late
    exactly([pushTo('m', 0, 's', 0, 500), pop('c1', 's', 100, 300, 0), ...taken(600)], {}, bounded);
    // due at 200: it waited 100 ms of it
    exactly([pushTo('m', 0, 's', 0, 200), pop('c1', 's', 100, 300, 0), ...taken(600)], { late: 1 }, bounded);
    // held by c2 (lease until 1001) over the wait
    exactly([m, deliverVia('m', 2, 'c2', 'schedule', 's', 1), pop('c1', 's', 100, 300, 0), ack('m', 400, 'c2')], {}, bounded);
    // an unknown remove at 50: it may be gone
    exactly([m, remove('m', 50, 'unknown'), pop('c1', 's', 100, 300, 0)], {}, bounded);
    // a reschedule in flight over the wait
    exactly([m, reschedule('m', 320, 0, 'ok', 80), pop('c1', 's', 100, 300, 0), ...taken(400)], {}, bounded);
    // an unknown push: it may not exist
    exactly([pushTo('m', 0, 's', 0, 0, 'unknown'), pop('c1', 's', 100, 300, 0)], {}, bounded);
  });

  it('a message not yet due by the end of the run is not lost', () => {
    exactly([pushTo('m', 0, 's', 0, 20_000)], {}, bounded);
    exactly([push('m', 0, 20_000)]);
    // an ok reschedule beyond the end too
    exactly([push('m', 0), reschedule('m', 100, 20_000)]);
    // but due before the end (and the bound) it is owed
    exactly([pushTo('m', 0, 's', 0, 9_000)], { 'lost-never-delivered': 1 }, bounded);
  });

  it('lateness figures: delivery minus the later of free-and-due and a waiting pop\'s start', () => {
    const r = check([m, pop('c1', 's', 100, 300, 0), ...taken(400)], phases, bounded);
    expect(r.lateness.count).toBe(1);
    expect(r.lateness.max).toBe(302);
    expect(check([m, ...taken(0)], phases, bounded).lateness).toMatchObject({ count: 1, max: 0 });
  });
});

describe('exposure: which properties a history could have broken (docs/CHECKER.md §5)', () => {
  const exercised = (h: HistoryOp[], s: CheckerSettings = bounded) => {
    const r = check(h, phases, s);
    return PROPERTY_NAMES.filter((p) => r.exercised[p]);
  };

  it('a plain push, delivery and ack exercises at-least-once and no phantoms only', () => {
    expect(exercised([push('m', 0), deliver('m', 10, 'c1'), ack('m', 20, 'c1')])).toEqual(['atLeastOnce', 'noPhantoms']);
    expect(exercised([push('m', 0, 0, 'fail')])).toEqual([]);
  });

  it('each property has a history that exercises it without breaking it', () => {
    // un-ack recovery and no double pop: a lease ran out, re-delivered in time
    expect(exercised([push('m', 0), deliver('m', 2_000, 'c1'), deliver('m', 2_900, 'c2'), ack('m', 2_910, 'c2')])).toEqual(expect.arrayContaining(['unackRecovery', 'noDoublePop']));
    // acks are final: removed
    expect(exercised([push('m', 0), remove('m', 50)])).toContain('acksAreFinal');
    // on time: a delayed message delivered by the schedule, not by id
    expect(exercised([push('m', 0, 100), deliver('m', 110, 'c1'), ack('m', 120, 'c1')])).toContain('onTime');
    expect(exercised([push('m', 0, 100), deliverVia('m', 110, 'c1', 'id'), ack('m', 120, 'c1')])).not.toContain('onTime');
    expect(exercised([push('m', 0), reschedule('m', 10, 100), deliver('m', 200, 'c1'), ack('m', 210, 'c1')])).toContain('onTime');
    // priority order: two priorities free and due together, the urgent one taken first
    const urgentFirst = [pushTo('b', 0, 's', 0), pushTo('a', 0, 's', 5), deliverVia('b', 110, 'c1', 'schedule', 's', 100), ack('b', 120, 'c1'), deliverVia('a', 210, 'c1', 'schedule', 's', 200), ack('a', 220, 'c1')];
    expect(exercised(urgentFirst)).toContain('priorityOrder');
    expect(check(urgentFirst, phases, bounded).properties.priorityOrder).toBe(true);
    expect(exercised([pushTo('b', 0, 's', 0), pushTo('a', 0, 's', 5), deliverVia('a', 110, 'c1', 'schedule', 's', 100), deliverVia('b', 110, 'c1', 'schedule', 's', 100), ack('a', 120, 'c1'), ack('b', 120, 'c1')])).toEqual(['atLeastOnce', 'noPhantoms']);
    // delivered promptly: a pop waiting while a message was free and due (within B)
    expect(exercised([pushTo('m', 0, 's', 0), pop('c1', 's', 100, 130, 0), deliverVia('m', 202, 'c1', 'schedule', 's', 200), ack('m', 210, 'c1')])).toContain('deliveredPromptly');
    expect(exercised([pushTo('m', 0, 's', 0), deliverVia('m', 202, 'c1', 'schedule', 's', 200), ack('m', 210, 'c1')])).not.toContain('deliveredPromptly');
  });

  it('priority order is exercised when a pop took a message while another priority was free and due', () => {
    // a (5) taken while b (0) waited past B, and later b taken while nothing else waited: exercised once, broken
    const h = [pushTo('b', 0, 's', 0), pushTo('a', 0, 's', 5), deliverVia('a', 110, 'c1', 'schedule', 's', 100), ack('a', 120, 'c1'), deliverVia('b', 210, 'c1', 'schedule', 's', 200), ack('b', 220, 'c1')];
    expect(exercised(h)).toContain('priorityOrder');
    // b (0) taken while a less urgent a (5) waited: exercised, held
    const fine = [pushTo('b', 0, 's', 0), pushTo('a', 0, 's', 5), deliverVia('b', 110, 'c1', 'schedule', 's', 100), ack('b', 120, 'c1'), deliverVia('a', 210, 'c1', 'schedule', 's', 200), ack('a', 220, 'c1')];
    expect(check(fine, phases, bounded).properties.priorityOrder).toBe(true);
    // each taken before the other had waited B: never two priorities free and due together for long
    expect(exercised([pushTo('b', 0, 's', 0), pushTo('a', 0, 's', 5), deliverVia('b', 25, 'c2', 'schedule', 's', 20), ack('b', 28, 'c2'), deliverVia('a', 35, 'c1', 'schedule', 's', 30), ack('a', 40, 'c1')])).not.toContain('priorityOrder');
    // without a bound neither shard property is exercised
    expect(exercised(h, settings)).not.toContain('priorityOrder');
  });

  it('violated implies exercised, for every property', () => {
    const broken: [HistoryOp[], CheckerSettings][] = [
      [[push('m', 0)], settings],
      [[push('s', 0), deliver('s', 2_000, 'c1'), deliver('s', 3_500, 'c2'), ack('s', 3_600, 'c2')], settings],
      [[push('m', 0), deliver('m', 10, 'c1'), deliver('m', 20, 'c2'), ack('m', 30, 'c2')], settings],
      [[push('m', 0), remove('m', 50), deliver('m', 100, 'c1'), ack('m', 110, 'c1')], settings],
      [[push('m', 0, 100), deliver('m', 50, 'c1'), ack('m', 60, 'c1')], settings],
      [[deliver('ghost', 10, 'c1')], settings],
      [[pushTo('b', 0, 's', 0), pushTo('a', 0, 's', 5), deliverVia('a', 110, 'c1', 'schedule', 's', 100), ack('a', 120, 'c1'), deliverVia('b', 210, 'c1', 'schedule', 's', 200), ack('b', 220, 'c1')], bounded],
      [[pushTo('m', 0, 's', 0), pop('c1', 's', 100, 300, 0), deliverVia('m', 402, 'c1', 'schedule', 's', 400), ack('m', 410, 'c1')], bounded],
    ];
    const seen = new Set<string>();
    // a consumer of shard s stopped at 50 while m was free and due there
    const stoppedPhases = { ...phases, stopped: [{ process: 'c1', shard: 's', at: 50 }] };
    const cases: [HistoryOp[], CheckerSettings, RunPhases][] = [...broken.map(([h, s]): [HistoryOp[], CheckerSettings, RunPhases] => [h, s, phases]), [[pushTo('m', 0, 's', 0), pop('c1', 's', 10, 20, 0)], bounded, stoppedPhases]];
    for (const [h, s, ph] of cases) {
      const r = check(h, ph, s);
      for (const p of PROPERTY_NAMES) {
        if (!r.properties[p]) {
          seen.add(p);
          expect(r.exercised[p], `${p}: ${JSON.stringify(h)}`).toBe(true);
        }
      }
    }
    // twins match Lua is broken by a simulation's stop, never by a history: a stopped run's report.
    const stopped = reportOfStoppedRun(check([push('m', 0), deliver('m', 10, 'c1')], phases, settings), { kind: 'twin-differs', id: 'atomicAck', t: 20, processes: [], detail: 'differs' });
    expect(stopped.properties.twinsMatchLua).toBe(false);
    expect(stopped.exercised.twinsMatchLua).toBe(true);
    // What only the end decides is not judged in a run that stopped: the undelivered-by-the-end loss is gone.
    expect(stopped.counts['lost-after-delivery'] + stopped.counts['lost-never-delivered']).toBe(0);
    expect(stopped.exercised.atLeastOnce).toBe(false);
    seen.add('twinsMatchLua');
    expect([...seen].sort()).toEqual([...PROPERTY_NAMES].sort());
  });

  it('keeps consuming: a consumer that stopped while its shard had work is named; one that stopped with none left holds, exercised', () => {
    const stopped = (at: number) => ({ ...phases, stopped: [{ process: 'c1', shard: 's', at }] });
    // m is free and due on s from 0 until c2 takes it at 5,000: c1 stopped at 50 left it to nobody
    const left = check([pushTo('m', 0, 's', 0), pop('c1', 's', 10, 20, 0), deliverVia('m', 5_000, 'c2', 'schedule', 's', 4_990), ack('m', 5_010, 'c2')], stopped(50), bounded);
    expect(left.properties.keepsConsuming).toBe(false);
    expect(left.violations.filter((v) => v.kind === 'consumer-stopped').map((v) => [v.id, v.processes, v.t])).toEqual([['m', ['c1'], 50]]);
    // c1 stopped after the last message was taken: nothing was left to it
    const done = check([pushTo('m', 0, 's', 0), deliverVia('m', 30, 'c1', 'schedule', 's', 20), ack('m', 40, 'c1')], stopped(50), bounded);
    expect(done.properties.keepsConsuming).toBe(true);
    expect(done.exercised.keepsConsuming).toBe(true);
    // another shard's work is not its
    expect(check([pushTo('m', 0, 't', 0)], stopped(50), bounded).properties.keepsConsuming).toBe(true);
    // no stop, no error reaching a consumer: not exercised; a failed pop by the schedule exercises it
    const clean = [pushTo('m', 0, 's', 0), deliverVia('m', 30, 'c1', 'schedule', 's', 20), ack('m', 40, 'c1')];
    expect(check(clean, phases, bounded).exercised.keepsConsuming).toBe(false);
    expect(check([...clean, pop('c1', 's', 50, 60, 0, 'unknown')], phases, bounded).exercised.keepsConsuming).toBe(true);
  });

  it('keeps consuming after the heal: a consumer busy with other work past the deadline has come back; nobody asking for a whole recovery bound has not', () => {
    // Liveness starts at 1,000; the deadline is 1,000 + 2 × 400 = 1,800; m is free and due from 0 to the end.
    // A pop of shard s failed before the heal: its consumers had something to come back from.
    const followed = { ...phases, stopped: [] };
    const base = [pushTo('m', 0, 's', 0), pop('c1', 's', 500, 600, 0, 'fail')];
    const notResumed = (h: HistoryOp[]) => check(h, followed, bounded).violations.filter((v) => v.kind === 'not-resumed');
    // c1 asks again 300 ms after the deadline (longer than B, within the recovery bound): it came back.
    expect(notResumed([...base, pop('c1', 's', 2_100, 2_200, 0)])).toEqual([]);
    // Nobody asks from the deadline on: named a recovery bound after it.
    expect(notResumed(base).map((v) => [v.id, v.t])).toEqual([['m', 1_800 + 400]]);
    // Asking only after that bound is too late to excuse it.
    expect(notResumed([...base, pop('c1', 's', 2_300, 2_400, 0)]).map((v) => v.id)).toEqual(['m']);
  });
});

/**
 * docs/CHECKER.md §2 and §3 read literally, pair by pair: slow but obviously right. Histories from the generator
 * below have one push per id and one delivery per process, so "the holder's ack" is unambiguous.
 */
function bruteForce(history: HistoryOp[], p: { livenessStart: number; end: number }): Record<ViolationKind, number> {
  const out = zeroPerKind();
  const allowance = settings.reaperIntervalMs + settings.recoveryBoundMs;
  for (const id of new Set(history.map((e) => e.id))) {
    const ev = history.filter((e) => e.id === id);
    const pushes = ev.filter((e) => e.type === 'push');
    const dels = ev.filter((e) => e.type === 'deliver').sort((a, b) => a.completedAt - b.completedAt) as Extract<HistoryOp, { type: 'deliver' }>[];
    const acks = ev.filter((e) => e.type === 'ack');
    if (dels.length > 1) out.duplicate++;
    if (pushes.length === 0) {
      out.unexpected += dels.length;
      continue;
    }
    const holdEnd = (d: (typeof dels)[number]) => Math.min(d.leaseUntil, ...acks.filter((a) => a.process === d.process).map((a) => a.completedAt));
    const pushApplied = pushes.filter((x) => x.outcome !== 'fail');
    const due = Math.min(...pushApplied.map((x) => x.invokedAt + (x as { delayMs: number }).delayMs));
    dels.forEach((d, i) => {
      if (pushApplied.length > 0 && d.completedAt < due) out.early++;
      if (dels.some((h, j) => j < i && h.process !== d.process && d.completedAt < holdEnd(h))) out['double-pop']++;
      if (acks.some((a) => a.outcome === 'ok' && a.completedAt < d.invokedAt && !pushApplied.some((x) => x.completedAt >= a.invokedAt && x.invokedAt < d.completedAt))) out.resurrection++;
      const own = acks.find((a) => a.process === d.process);
      if (own && own.outcome !== 'fail') return;
      const deadline = Math.max(d.leaseUntil, p.livenessStart) + allowance;
      if (deadline > p.end) return;
      const since = Math.max(-Infinity, ...pushApplied.filter((x) => x.invokedAt <= d.completedAt).map((x) => x.invokedAt));
      const recovered = dels.some((n, j) => j > i && n.completedAt <= deadline) || acks.some((a) => a.outcome !== 'fail' && a.completedAt >= since && a.completedAt <= deadline);
      if (!recovered) out['slow-recovery']++;
    });
    const okPush = pushes.find((x) => x.outcome === 'ok');
    // still held when the history ends: its holder may yet ack it (unknown, not lost)
    const heldAtEnd = okPush !== undefined && dels.some((d) => d.completedAt >= okPush.invokedAt && !acks.some((a) => a.process === d.process) && holdEnd(d) >= p.end);
    if (okPush && !heldAtEnd && !acks.some((a) => a.outcome !== 'fail' && a.completedAt >= okPush.invokedAt)) {
      if (dels.some((d) => d.completedAt >= okPush.invokedAt)) out['lost-after-delivery']++;
      else out['lost-never-delivered']++;
    }
  }
  return out;
}

describe('history checker agrees with a brute-force reading of the definitions', () => {
  const outcome = fc.constantFrom<Outcome>('ok', 'ok', 'fail', 'unknown');
  const idHistory = (id: string) =>
    fc
      .record({
        delay: fc.constantFrom(0, 150),
        pushOutcome: outcome,
        pushed: fc.boolean(),
        deliveries: fc.array(fc.record({ at: fc.integer({ min: 0, max: 40 }), ack: fc.option(outcome), ackAfter: fc.integer({ min: 1, max: 12 }) }), { maxLength: 3 }),
      })
      .map(({ delay, pushOutcome, pushed, deliveries }) => {
        const h: HistoryOp[] = pushed ? [push(id, 0, delay, pushOutcome)] : [];
        deliveries.forEach((d, i) => {
          h.push(deliver(id, d.at * 100 + i, `c${i}`, 500, d.at * 100 + i - 1));
          if (d.ack !== null) h.push(ack(id, d.at * 100 + i + d.ackAfter * 100, `c${i}`, d.ack));
        });
        return h;
      });

  it('on random small histories, outcomes ok / fail / unknown included', () => {
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom('m1', 'm2', 'm3'), { minLength: 1, maxLength: 3 }).chain((ids) => fc.tuple(...[...new Set(ids)].map(idHistory))),
        fc.constantFrom({ livenessStart: 0, end: 6_000 }, { livenessStart: 1_500, end: 4_000 }),
        (parts, p) => {
          const history = parts.flat();
          expect(checkHistory(history, p, settings).counts, JSON.stringify(history)).toEqual(bruteForce(history, p));
        },
      ),
      { numRuns: Math.round(2_000 * SCALE) },
    );
  });
});

type Op = HistoryOp;
type Vis = Extract<Op, { type: 'push' | 'ensure' | 'reschedule' | 'release' }>;
type Del = Extract<Op, { type: 'deliver' }>;

/**
 * docs/CHECKER.md §2 and §3 read literally, written from the text and not from the checker: every
 * definition is a direct quantifier over operations, and "free and due" is decided point by point
 * on a 1 ms grid (all generated times are integers; a point t + 0.5 stands for the open interval
 * (t, t + 1)), so no interval bookkeeping is shared with the checker. Histories from the generator
 * below have one delivery per process per message, so "the holder's ack / release" is unambiguous,
 * and each message keeps one shard and one priority. Readings chosen where the text leaves a choice
 * (each the one that never blames an unknown):
 * - "free and due" needs an ok operation to have made the message visible, nothing visible in flight
 *   (any outcome: a failed call may still be running when the pop reads), no taker since (a delivery
 *   from its pop's invocation, an unknown pop that could reach it, an ack or remove that may have
 *   applied; one overlapping the last visibility operation counts, as it may have come after it), no unknown visibility operation returned since the last one began (it may have come after it), and the last one's latest due time passed.
 * - An ok reschedule, release, ack or remove found the message, so it came after the only creation
 *   that may have made it, however the two overlap: it overtakes that creation, and a creation a
 *   reschedule or release so came after is not the last visibility operation (nor an unknown one since).
 * - A delivery that no operation invoked before its pop returned could explain is judged against the
 *   later ones: before each of their due times, it is early.
 */
function bruteForceWholeApi(history: Op[], p: { livenessStart: number; end: number }, s: Required<CheckerSettings>): Record<ViolationKind, number> {
  const out = zeroPerKind();
  const B = s.deliveryBoundMs;
  const allowance = s.reaperIntervalMs + s.recoveryBoundMs + B;
  const applied = (o: Op) => o.outcome !== 'fail';
  const creates = (o: Op) => (o.type === 'push' || o.type === 'ensure') && applied(o) && !(o.type === 'ensure' && o.outcome === 'ok' && o.created === false);
  const isVis = (o: Op): o is Vis => o.type === 'push' || o.type === 'ensure' || o.type === 'reschedule' || o.type === 'release';
  const mayMakeVisible = (o: Op): o is Vis => isVis(o) && (o.type === 'reschedule' || o.type === 'release' ? applied(o) : creates(o));
  const firstDue = (v: Vis) => (v.type === 'release' ? v.invokedAt : v.invokedAt + v.delayMs);
  const lastDue = (v: Vis) => (v.type === 'release' ? v.completedAt : v.completedAt + v.delayMs);
  const pops = history.filter((o): o is Extract<Op, { type: 'pop' }> => o.type === 'pop');
  const ids = [...new Set(history.flatMap((o) => (o.type === 'pop' ? [] : [o.id])))];
  const opsOf = (id: string) => history.filter((o) => o.type !== 'pop' && o.id === id) as Exclude<Op, { type: 'pop' }>[];
  // Where a message lives and how urgent it is: as a push or ensure that may have written it recorded it.
  // (failing that, as a delivery from it recorded it).
  const shardOf = (id: string) => (opsOf(id).find(creates) as { shard?: string } | undefined)?.shard ?? (opsOf(id).find((o) => o.type === 'deliver') as { shard?: string } | undefined)?.shard;
  const priorityOf = (id: string) => (opsOf(id).find(creates) as { priority?: number } | undefined)?.priority ?? 0;
  // An ok reschedule, release, ack or remove found the message: when v is the only creation that may
  // have made it invoked before y returned, y came after v, however they overlap.
  const foundAfter = (ev: Op[], y: Op, v: Op) => y.outcome === 'ok' && creates(v) && v.invokedAt < y.completedAt && ev.filter((c) => creates(c) && c.invokedAt < y.completedAt).length === 1;
  // A later ok reschedule, release, ack or remove that surely came after v and before time t.
  const overtaken = (ev: Op[], v: Op, t: number) => ev.some((y) => y !== v && y.outcome === 'ok' && ['reschedule', 'release', 'ack', 'remove'].includes(y.type) && (y.invokedAt > v.completedAt || foundAfter(ev, y, v)) && y.completedAt < t);
  // A push or ensure whose effect an ok reschedule or release returned by t found and decided again.
  const superseded = (ev: Op[], v: Op, t: number) => ev.some((y) => (y.type === 'reschedule' || y.type === 'release') && y.completedAt < t && foundAfter(ev, y, v));

  /** Free and due at the point t (never an operation's own time). */
  const free = (id: string, t: number): boolean => {
    const ev = opsOf(id);
    if (ev.some((o) => isVis(o) && o.invokedAt < t && t < o.completedAt)) return false;
    const oks = ev.filter((o): o is Vis => mayMakeVisible(o) && o.outcome === 'ok' && o.completedAt < t && !superseded(ev, o, t));
    if (oks.length === 0) return false;
    const last = oks.reduce((a, b) => (b.completedAt >= a.completedAt ? b : a));
    // an unknown one that returned since the last began may have come after it
    if (ev.some((o) => isVis(o) && o !== last && o.outcome === 'unknown' && o.completedAt >= last.invokedAt && o.completedAt < t && !superseded(ev, o, t))) return false;
    const takers: { invokedAt: number; completedAt: number }[] = [
      ...ev.filter((o) => o.type === 'deliver' || ((o.type === 'ack' || o.type === 'remove') && applied(o))),
      ...pops.filter((q) => q.outcome === 'unknown' && (q.via === 'id' ? q.id === id : q.shard === undefined || q.shard === shardOf(id))),
    ];
    // A taker since, or one overlapping the last visibility operation (it may have come after it).
    if (takers.some((k) => k.invokedAt < t && k.completedAt >= last.invokedAt)) return false;
    return lastDue(last) < t;
  };

  // The waits of a shard: its ok pops by the schedule, one consumer's pops that follow an empty one at
  // once (within 1 ms) continuing the same wait.
  const waitingOf = (shard: string | undefined) => {
    const single = pops.filter((q) => q.outcome === 'ok' && q.via === 'schedule' && q.shard === shard);
    return single.map((q) => {
      let start = q.invokedAt;
      for (;;) {
        const before = single.find((o) => o !== q && o.process === q.process && o.delivered === 0 && o.completedAt <= start && start - o.completedAt <= 1);
        if (!before) break;
        start = before.invokedAt;
      }
      return { ...q, invokedAt: start };
    });
  };

  for (const id of ids) {
    const ev = opsOf(id);
    const dels = ev.filter((o): o is Del => o.type === 'deliver').sort((a, b) => a.completedAt - b.completedAt);
    const creators = ev.filter(creates);
    if (dels.length > 1) out.duplicate++;
    if (!ev.some((o) => o.type === 'push' || o.type === 'ensure')) {
      out.unexpected += dels.length;
      continue;
    }
    const own = <T extends Op['type']>(type: T, d: Del) => ev.find((o) => o.type === type && o.process === d.process && o.invokedAt >= d.completedAt) as Extract<Op, { type: T }> | undefined;
    const holdEnd = (d: Del) => {
      const a = own('ack', d);
      const r = own('release', d);
      const ackReturn = a ? a.completedAt : Infinity;
      // an ack that may have applied, followed by a creation that may have begun a new life (another
      // creation may have made the delivered one): the hold ends as early as that new life may begin
      const renewed = a && applied(a) ? ev.filter((c) => creates(c) && c.completedAt > a.invokedAt && ev.some((q) => q !== c && creates(q) && q.invokedAt < d.completedAt)) : [];
      const ackEnd = Math.min(ackReturn, ...renewed.map((c) => Math.max(a!.invokedAt, c.invokedAt)));
      const relEnd = r && r.completedAt <= ackReturn ? (applied(r) ? r.invokedAt : r.completedAt) : Infinity;
      // a remove that may have applied after the pop began deletes the lease, as early as it may have
      const removedAt = Math.min(...ev.filter((y) => y.type === 'remove' && applied(y) && y.completedAt > d.invokedAt).map((y) => Math.max(y.invokedAt, d.completedAt)));
      return Math.min(d.leaseUntil, ackEnd, relEnd, removedAt);
    };
    dels.forEach((d, i) => {
      // early: by the schedule, before the earliest due time any undecided visibility operation allows
      if ((d.via ?? 'schedule') === 'schedule') {
        const vis = ev.filter(mayMakeVisible);
        const before = vis.filter((v) => v.invokedAt < d.completedAt && !overtaken(ev, v, d.invokedAt));
        const deciding = before.length > 0 ? before : vis;
        if (deciding.length > 0 && d.completedAt < Math.min(...deciding.map(firstDue))) out.early++;
      }
      // double pop: while a delivery to another process is held
      if (dels.some((h, j) => j < i && h.process !== d.process && d.completedAt < holdEnd(h))) out['double-pop']++;
      // resurrection: pop invoked after an ok ack or remove returned, no create overlapping in between
      const finals = ev.filter((y) => (y.type === 'ack' || y.type === 'remove') && y.outcome === 'ok' && y.completedAt < d.invokedAt);
      if (finals.some((y) => !creators.some((c) => c.completedAt >= y.invokedAt && c.invokedAt < d.completedAt))) out.resurrection++;
      // slow recovery: the hold ended without an ok/unknown ack by its holder
      const a = own('ack', d);
      if (a && applied(a)) return;
      const r = own('release', d);
      const rel = r && (!a || r.completedAt <= a.completedAt) ? r : undefined;
      const ended = rel?.outcome === 'ok' ? rel.completedAt : rel?.outcome === 'unknown' ? Math.max(rel.completedAt, d.leaseUntil) : d.leaseUntil;
      let deadline = Math.max(ended, p.livenessStart) + allowance;
      for (const x of ev) if (x.type === 'reschedule' && applied(x) && x.invokedAt > d.completedAt && x.invokedAt <= deadline) deadline = Math.max(deadline, lastDue(x) + allowance);
      if (deadline > p.end) return;
      const since = Math.max(-Infinity, ...creators.filter((c) => c.invokedAt <= d.completedAt).map((c) => c.invokedAt));
      if (pops.length > 0) {
        // On demand: owed from deadline - B until taken again, acked or removed or created anew, except
        // while an unknown pop that could reach it may have leased it (from its invocation to its
        // return + the hold's lease length + reaper + bound); one finding per owed stretch in which a
        // pop of its shard waited longer than B.
        const from = deadline - B;
        const takers = [
          ...dels.filter((_n, j) => j > i),
          ...ev.filter((y) => (y.type === 'ack' || y.type === 'remove') && applied(y) && y.completedAt >= since),
          ...creators.filter((c) => c.invokedAt > d.completedAt),
        ];
        const to = Math.min(p.end, ...takers.map((y) => y.invokedAt));
        const lease = d.leaseUntil - d.invokedAt;
        const gaps = pops
          .filter((q) => q.outcome === 'unknown' && (q.via === 'id' ? q.id === id : q.shard === undefined || q.shard === shardOf(id)) && q.completedAt > holdEnd(d))
          .map((q) => [q.invokedAt, q.completedAt + lease + allowance - B] as const);
        const owedAt = (t: number) => t >= from && t < to && !gaps.some(([a, b]) => t >= a && t < b);
        // the owed stretches, on the 1 ms grid (t + 0.5 stands for (t, t + 1))
        const stretches: [number, number][] = [];
        for (let t = Math.floor(from); t < to; t++) {
          if (!owedAt(t + 0.5)) continue;
          const last = stretches.at(-1);
          if (last && last[1] === t) last[1] = t + 1;
          else stretches.push([t, t + 1]);
        }
        if (stretches.length > 0) stretches[0]![0] = Math.max(stretches[0]![0], from);
        const waits = waitingOf(d.shard ?? shardOf(id));
        for (const [a, b] of stretches) if (waits.some((q) => Math.min(q.completedAt, b) - Math.max(q.invokedAt, a) > B)) out['slow-recovery']++;
        return;
      }
      const recovered = dels.some((n, j) => j > i && n.completedAt <= deadline) || ev.some((y) => (y.type === 'ack' || y.type === 'remove') && applied(y) && y.completedAt >= since && y.completedAt <= deadline);
      if (!recovered) out['slow-recovery']++;
    });
    // lost: the latest ok create not followed by an ok/unknown ack or remove, and due (plus B) by the end
    const okCreates = creators.filter((c) => c.outcome === 'ok');
    if (okCreates.length > 0) {
      const last = okCreates.reduce((x, y) => (y.invokedAt > x.invokedAt ? y : x));
      const discharged = ev.some((y) => (y.type === 'ack' || y.type === 'remove') && applied(y) && y.completedAt >= last.invokedAt);
      const dueBy = Math.max(lastDue(last as Vis), ...ev.filter(mayMakeVisible).filter((v) => v.invokedAt < p.end && !overtaken(ev, v, p.end)).map(lastDue));
      // still held at the end, or a pop in flight at the end may have taken it: unknown, not lost
      const heldAtEnd = dels.some((d) => d.completedAt >= last.invokedAt && !own('ack', d) && !own('release', d) && holdEnd(d) >= p.end);
      const popAtEnd = pops.some((q) => q.outcome === 'unknown' && q.completedAt >= p.end && (q.via === 'id' ? q.id === id : q.shard === undefined || q.shard === shardOf(id)));
      if (!discharged && !heldAtEnd && !popAtEnd && dueBy + B <= p.end) {
        if (dels.some((d) => d.completedAt >= last.invokedAt)) out['lost-after-delivery']++;
        else out['lost-never-delivered']++;
      }
    }
  }

  // The grid of free points per message, and its maximal runs (stretches of freedom).
  const grid = new Map<string, boolean[]>();
  for (const id of ids) if (shardOf(id) !== undefined) grid.set(id, Array.from({ length: p.end }, (_, t) => free(id, t + 0.5)));
  const freeThrough = (id: string, from: number, to: number) => {
    const g = grid.get(id)!;
    for (let t = Math.floor(from); t < to; t++) if (t < 0 || !g[t]) return false;
    return true;
  };
  for (const a of history) {
    // priority inversion: a popped by the schedule while a more urgent b of its shard was free and due
    // for longer than B before a's pop was invoked, and still from then until a's pop returned (at
    // least the millisecond it began: a pop of no duration took what was free at that instant)
    if (a.type !== 'deliver' || (a.via ?? 'schedule') !== 'schedule' || !grid.has(a.id)) continue;
    const inverted = ids.some((b) => b !== a.id && grid.has(b) && shardOf(b) === shardOf(a.id) && priorityOf(b) < priorityOf(a.id) && freeThrough(b, a.invokedAt - B - 1, Math.max(a.completedAt, a.invokedAt + 1)));
    if (inverted) out['priority-inversion']++;
  }
  // late: per stretch of a message's freedom, some ok pop by the schedule on its shard overlapping it by more than B
  for (const [id, g] of grid) {
    const waiting = waitingOf(shardOf(id));
    let t = 0;
    while (t < g.length) {
      if (!g[t]) {
        t++;
        continue;
      }
      let u = t;
      while (u < g.length && g[u]) u++;
      if (waiting.some((q) => Math.min(q.completedAt, u) - Math.max(q.invokedAt, t) > B)) out.late++;
      t = u;
    }
  }
  return out;
}

describe('history checker agrees with a brute-force reading of docs/CHECKER.md §2 and §3', () => {
  const outcome = fc.constantFrom<Outcome>('ok', 'ok', 'fail', 'unknown');
  const at = fc.integer({ min: 0, max: 28 }).map((n) => n * 100);
  const span = fc.constantFrom(0, 5, 40);
  const idHistory = (id: string, shards: string[]) =>
    fc
      .record({
        shard: fc.constantFrom(...shards),
        priority: fc.integer({ min: 0, max: 2 }),
        delay: fc.constantFrom(0, 150, 700),
        pushOutcome: outcome,
        pushAt: fc.constantFrom(0, 0, 300),
        // a long push overlaps the reschedule, deliveries and releases that found the message it made
        pushSpan: fc.constantFrom(2, 2, 60, 250),
        reschedule: fc.option(fc.record({ at, delay: fc.constantFrom(0, 300), outcome, span })),
        remove: fc.option(fc.record({ at, outcome })),
        ensure: fc.option(fc.record({ at, created: fc.constantFrom<boolean | undefined>(true, false, undefined), outcome })),
        deliveries: fc.array(
          fc.record({ at, via: fc.constantFrom<DeliveryVia>('schedule', 'schedule', 'id'), end: fc.constantFrom('ack', 'release', 'none'), outcome, after: fc.integer({ min: 1, max: 12 }), span }),
          { maxLength: 3 },
        ),
      })
      .map((g) => {
        const h: HistoryOp[] = [pushTo(id, g.pushAt + g.pushSpan, g.shard, g.priority, g.delay, g.pushOutcome, g.pushAt)];
        if (g.reschedule) h.push(reschedule(id, g.reschedule.at + 3 + g.reschedule.span, g.reschedule.delay, g.reschedule.outcome, g.reschedule.at + 3));
        if (g.remove) h.push({ ...remove(id, g.remove.at + 7, g.remove.outcome), invokedAt: g.remove.at + 6 });
        if (g.ensure) {
          const o = g.ensure.created === undefined ? (g.ensure.outcome === 'ok' ? 'unknown' : g.ensure.outcome) : g.ensure.outcome;
          h.push(ensure(id, g.ensure.at + 9, o === 'ok' ? g.ensure.created : undefined, 0, o, { shard: g.shard, priority: g.priority }));
        }
        g.deliveries.forEach((d, i) => {
          const t = d.at + 11 + i;
          h.push(deliverVia(id, t + d.span, `c${i}`, d.via, g.shard, t));
          const ends = t + d.span + d.after * 100;
          if (d.end === 'ack') h.push(ack(id, ends + 1, `c${i}`, d.outcome, ends));
          if (d.end === 'release') h.push(release(id, ends + 1, `c${i}`, d.outcome, ends));
        });
        return h;
      });
  const pops = (shards: string[]) =>
    fc.array(fc.record({ shard: fc.constantFrom(...shards), at, dur: fc.constantFrom(30, 80, 250), outcome: fc.constantFrom<Outcome>('ok', 'ok', 'unknown'), who: fc.integer({ min: 0, max: 2 }) }), { maxLength: 4 }).map((ps) => ps.map((q) => pop(`w${q.who}`, q.shard, q.at + 13, q.at + 13 + q.dur, 0, q.outcome)));

  it('on random small histories: several messages on one or two shards, every operation, ok / fail / unknown', () => {
    fc.assert(
      fc.property(
        fc.constantFrom<string[][]>(['s'], ['s', 't']).chain((shards) =>
          fc.tuple(fc.uniqueArray(fc.constantFrom('m1', 'm2', 'm3'), { minLength: 1, maxLength: 3 }).chain((ids) => fc.tuple(...ids.map((id) => idHistory(id, shards)))), pops(shards)),
        ),
        fc.constantFrom({ livenessStart: 0, end: 3_000 }, { livenessStart: 1_500, end: 4_000 }),
        ([parts, ps], p) => {
          const history = [...parts.flat(), ...ps];
          expect(checkHistory(history, p, bounded).counts, JSON.stringify(history)).toEqual(bruteForceWholeApi(history, p, bounded));
        },
      ),
      { numRuns: Math.round(400 * SCALE) },
    );
  }, 60_000 * Math.max(1, SCALE));
});

describe('history files (dynoq judge)', () => {
  const h = [push('m', 0), deliver('m', 10, 'c1'), ack('m', 20, 'c1', 'unknown')];

  it('round-trips a history with its phases and settings', () => {
    const parsed = parseHistoryFile(formatHistoryFile(h, phases, settings));
    expect(parsed).toEqual({ history: h, phases, settings });
  });

  it('defaults: the whole history is liveness, the end is the last completion; flags win over the run line', () => {
    const text = h.map((o) => JSON.stringify(o)).join('\n');
    expect(parseHistoryFile(text).phases).toEqual({ livenessStart: 0, end: 20 });
    expect(parseHistoryFile(formatHistoryFile(h, phases, settings), 'f', { end: 9_999, recoveryBoundMs: 1 })).toMatchObject({ phases: { end: 9_999 }, settings: { recoveryBoundMs: 1 } });
  });

  it('rejects bad lines with the line number and the field', () => {
    const bad = (text: string) => {
      try {
        parseHistoryFile(text, 'h.jsonl');
      } catch (err) {
        expect(err).toBeInstanceOf(HistoryFileError);
        return (err as Error).message;
      }
      throw new Error('accepted');
    };
    expect(bad('{"type":"push"')).toBe('h.jsonl:1: not JSON');
    expect(bad('{"type":"ack","process":"c","id":"m","invokedAt":1,"completedAt":2,"outcome":"maybe"}')).toMatch(/^h\.jsonl:1: outcome: /);
    expect(bad('\n{"type":"peek","process":"c","id":"m","invokedAt":1,"completedAt":2,"outcome":"ok"}')).toMatch(/^h\.jsonl:2: type: /);
    expect(bad('{"type":"ack","process":"c","id":"m","invokedAt":5,"completedAt":2,"outcome":"ok"}')).toBe('h.jsonl:1: completedAt 2 is before invokedAt 5');
    expect(bad('')).toBe('h.jsonl: no operations');
    expect(bad('{"type":"deliver","process":"c","id":"m","invokedAt":1,"completedAt":2,"outcome":"unknown","leaseUntil":9}')).toMatch(/outcome/);
  });
});

describe('a lease a pop kept back (its reply came a whole lease late: it handed nothing over)', () => {
  /** c1's pop [100, 700] leased m (lease 500) and kept it back: a kept-back operation and an empty pop. */
  const keptBack = (id: string, process: string, invokedAt: number, completedAt: number, lease = 500): HistoryOp => ({ type: 'kept-back', process, id, invokedAt, completedAt, outcome: 'ok', leaseUntil: completedAt + lease, shard: 's' });
  const keptPop = [keptBack('m', 'c1', 100, 700), pop('c1', 's', 100, 700, 0)];
  // m (urgent) due at 0, u (less urgent) pushed at 150; while m sat in the un-ack set c2 popped u, and m came back after its lease.
  const h = [pushTo('m', 0, 's', 0), pushTo('u', 150, 's', 5), ...keptPop, pop('c2', 's', 180, 190, 1), deliverVia('u', 190, 'c2', 'schedule', 's', 180), ack('u', 200, 'c2'), pop('c2', 's', 1_500, 1_510, 1), deliverVia('m', 1_510, 'c2', 'schedule', 's', 1_500), ack('m', 1_520, 'c2')];
  it('is not free while leased: no priority order or delivered promptly finding blames the pops for it', () => {
    exactly(h, {}, bounded);
    // Without its kept-back line the checker counts m free and due from 0 and blames the pops.
    const without = h.filter((o) => o.type !== 'kept-back');
    expect(kinds(without, bounded)['priority-inversion']).toBeGreaterThan(0);
    expect(kinds(without, bounded).late).toBeGreaterThan(0);
  });
  it('excuses only the message it leased: another message of the shard left waiting meanwhile is still late', () => {
    // n, due at 0 on the same shard, free all along: c3's pop [300, 600] came back empty, n was popped at 800.
    const breadth = [...h, pushTo('n', 0, 's', 0), pop('c3', 's', 300, 600, 0), pop('c3', 's', 800, 810, 1), deliverVia('n', 810, 'c3', 'schedule', 's', 800), ack('n', 820, 'c3')];
    const report = check(breadth, phases, bounded);
    expect(report.violations.filter((v) => v.kind === 'late').map((v) => v.id)).toContain('n');
    expect(report.violations.filter((v) => v.id === 'm')).toEqual([]);
  });
  it('is held by nobody: a delivery while it is still leased is no double pop', () => {
    exactly([pushTo('m', 0, 's', 0), ...keptPop, deliverVia('m', 900, 'c2', 'schedule', 's', 890), ack('m', 910, 'c2')]);
  });
  it('owes a re-delivery after its lease (un-ack recovery), and not before', () => {
    // Lease to 1,200, then reaper 100 + bound 400: owed by 1,700.
    exactly([pushTo('m', 0, 's', 0), ...keptPop, deliverVia('m', 1_650, 'c2', 'schedule', 's', 1_650), ack('m', 1_660, 'c2')]);
    const never = check([pushTo('m', 0, 's', 0), ...keptPop], phases, settings);
    expect(never.violations.filter((v) => v.kind === 'slow-recovery').map((v) => v.detail)).toEqual([expect.stringContaining('kept back by its pop')]);
  });
});
