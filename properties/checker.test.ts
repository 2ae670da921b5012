import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkHistory } from '../src/model/checker.js';
import type { CheckerSettings, DeliveryVia, HistoryOp, Outcome } from '../src/model/history.js';
import { formatHistoryFile, HistoryFileError, parseHistoryFile } from '../src/model/history-file.js';
import { FAILURE_KINDS, kindsBreaking, PROPERTY_NAMES, VIOLATION_KIND_NAMES, zeroPerKind, type ViolationKind } from '../src/model/properties.js';

const SCALE = Number(process.env.DYNOQ_PROPERTY_SCALE ?? 1);
const phases = { livenessStart: 1_000, end: 10_000 };
const settings = { reaperIntervalMs: 100, recoveryBoundMs: 400 };
/** The same with a delivery bound B = 50 ms: priority order and late are judged (SPEC §6.6). */
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

/** A push with a priority on a shard (SPEC §6.5: a push records both). */
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
    expect(PROPERTY_NAMES).toEqual(['atLeastOnce', 'unackRecovery', 'noDoublePop', 'acksAreFinal', 'onTime', 'noPhantoms', 'priorityOrder', 'deliveredPromptly']);
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

describe('history checker: SPEC §6.2, definition by definition', () => {
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
    // a deadline after the end of the run is not judged; one exactly at the end is
    exactly([push('s', 0), deliver('s', 9_500, 'c1')], { 'lost-after-delivery': 1 });
    exactly([push('s', 0), deliver('s', 9_000, 'c1')], { 'slow-recovery': 1, 'lost-after-delivery': 1 });
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

/**
 * SPEC §6.2 read literally, pair by pair: slow but obviously right. Histories from the generator
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
    if (okPush && !acks.some((a) => a.outcome !== 'fail' && a.completedAt >= okPush.invokedAt)) {
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
