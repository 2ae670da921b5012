import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkHistory, type ViolationKind } from '../src/model/checker.js';
import type { HistoryEvent } from '../src/model/history.js';

const SCALE = Number(process.env.DYNOQ_PROPERTY_SCALE ?? 1);
const phases = { livenessStart: 1_000, end: 10_000 };
const settings = { reaperIntervalMs: 100, recoveryBoundMs: 400 };
const kinds = (h: HistoryEvent[]) => checkHistory(h, phases, settings).counts;

const push = (id: string, t: number, delayMs = 0, ok = true): HistoryEvent => ({ type: 'push', invokedAt: t, t, actor: 'p', id, delayMs, ok });
const deliver = (id: string, t: number, actor: string, lease = 500): HistoryEvent => ({
  type: 'deliver',
  invokedAt: t,
  t,
  actor,
  id,
  leaseUntil: t + lease,
});
const ack = (id: string, t: number, actor: string, ok = true): HistoryEvent => ({ type: 'ack', invokedAt: t, t, actor, id, ok });

describe('history checker: hand-built histories, one per violation kind', () => {
  it('a clean history has no violations', () => {
    const c = kinds([push('m', 0), deliver('m', 10, 'c1'), ack('m', 20, 'c1')]);
    expect(Object.values(c).every((n) => n === 0)).toBe(true);
  });
  it('lost: pushed, never delivered', () => {
    expect(kinds([push('m', 0)]).lost).toBe(1);
    expect(kinds([push('m', 0, 0, false)]).lost).toBe(0);
  });
  it('double pop: delivered while another holder still held it', () => {
    expect(kinds([push('m', 0), deliver('m', 10, 'c1'), deliver('m', 100, 'c2')])['double-pop']).toBe(1);
    // after the first holder's lease ended, a second delivery is only a duplicate
    const after = kinds([push('m', 0), deliver('m', 10, 'c1'), deliver('m', 600, 'c2'), ack('m', 700, 'c2')]);
    expect(after['double-pop']).toBe(0);
    expect(after.duplicate).toBe(1);
  });
  it('early: delivered before push time + delay', () => {
    expect(kinds([push('m', 0, 100), deliver('m', 50, 'c1'), ack('m', 60, 'c1')]).early).toBe(1);
  });
  it('resurrection: delivered after an acknowledged ack, without a new push', () => {
    expect(kinds([push('m', 0), deliver('m', 10, 'c1'), ack('m', 20, 'c1'), deliver('m', 800, 'c2')]).resurrection).toBe(1);
    expect(kinds([push('m', 0), deliver('m', 10, 'c1'), ack('m', 20, 'c1'), push('m', 30), deliver('m', 800, 'c2'), ack('m', 900, 'c2')]).resurrection).toBe(0);
  });
  it('unexpected: delivered, never pushed', () => {
    expect(kinds([deliver('ghost', 10, 'c1')]).unexpected).toBe(1);
  });
  it('slow recovery: an expired lease in the liveness phase not re-delivered within the bound', () => {
    const late = kinds([push('m', 0), deliver('m', 2_000, 'c1'), deliver('m', 3_500, 'c2'), ack('m', 3_600, 'c2')]);
    expect(late['slow-recovery']).toBe(1);
    const prompt = kinds([push('m', 0), deliver('m', 2_000, 'c1'), deliver('m', 2_700, 'c2'), ack('m', 2_800, 'c2')]);
    expect(prompt['slow-recovery']).toBe(0);
  });
  it('names ids, actors and times in its report', () => {
    const r = checkHistory([push('m', 0), deliver('m', 10, 'c1'), deliver('m', 100, 'c2')], phases, settings);
    const v = r.violations.find((x) => x.kind === 'double-pop')!;
    expect(v).toMatchObject({ id: 'm', t: 100, actors: ['c1', 'c2'] });
    expect(r.properties.noDoublePop).toBe(false);
  });
});

/** The definitions of SPEC §6 applied literally, pair by pair: slow but obviously right. */
function bruteForce(history: HistoryEvent[]): Record<'lost' | 'double-pop' | 'duplicate' | 'early' | 'resurrection' | 'unexpected', number> {
  const ids = [...new Set(history.map((e) => e.id))];
  const out = { lost: 0, 'double-pop': 0, duplicate: 0, early: 0, resurrection: 0, unexpected: 0 };
  for (const id of ids) {
    const ev = history.filter((e) => e.id === id);
    const pushes = ev.filter((e) => e.type === 'push');
    const dels = ev.filter((e): e is Extract<HistoryEvent, { type: 'deliver' }> => e.type === 'deliver');
    const acks = ev.filter((e): e is Extract<HistoryEvent, { type: 'ack' }> => e.type === 'ack' && e.ok);
    if (dels.length > 1) out.duplicate++;
    if (pushes.length === 0) {
      out.unexpected += dels.length;
      continue;
    }
    const firstDue = Math.min(...pushes.map((p) => p.invokedAt + p.delayMs));
    for (const d of dels) if (d.t < firstDue) out.early++;
    for (const d of dels) {
      const resurrected = acks.some((a) => a.t < d.invokedAt && !pushes.some((p) => p.invokedAt > a.t && p.invokedAt < d.invokedAt));
      if (resurrected) out.resurrection++;
    }
    for (const d of dels) {
      const held = dels.some((h) => {
        if (h === d || h.t > d.t || (h.t === d.t && dels.indexOf(h) > dels.indexOf(d))) return false;
        const holderAck = acks.filter((a) => a.actor === h.actor && a.t >= h.t).map((a) => a.t);
        const until = Math.min(h.leaseUntil, ...holderAck);
        return d.t < until;
      });
      if (held) out['double-pop']++;
    }
    if (pushes.some((p) => p.type === 'push' && p.ok) && dels.length === 0 && acks.length === 0) out.lost++;
  }
  return out;
}

describe('history checker: report contents', () => {
  it('counts pushes, deliveries and acks, and measures due → delivery latency', () => {
    const h = [push('a', 0, 100), deliver('a', 130, 'c1'), ack('a', 140, 'c1'), push('b', 0), deliver('b', 10, 'c1'), ack('b', 20, 'c1', false), deliver('b', 600, 'c2'), ack('b', 610, 'c2')];
    const r = checkHistory(h, phases, settings);
    expect([r.pushed, r.delivered, r.acked]).toEqual([2, 3, 2]);
    expect(r.latency).toEqual({ p50: 30, p99: 30 });
    expect(checkHistory([], phases, settings).latency).toEqual({ p50: 0, p99: 0 });
    const many = Array.from({ length: 100 }, (_, i) => [push(`m${i}`, 0), deliver(`m${i}`, i + 1, 'c'), ack(`m${i}`, i + 2, 'c')]).flat();
    expect(checkHistory(many, phases, settings).latency).toEqual({ p50: 51, p99: 100 });
  });

  it('a removed message is not lost, and a failed ack does not end a hold', () => {
    const removed: HistoryEvent = { type: 'remove', invokedAt: 5, t: 5, actor: 'p', id: 'm', ok: true };
    expect(kinds([push('m', 0), removed]).lost).toBe(0);
    expect(kinds([push('m', 0), { ...removed, ok: false }]).lost).toBe(1);
    expect(kinds([push('m', 0), deliver('m', 10, 'c1'), ack('m', 20, 'c1', false), deliver('m', 100, 'c2')])['double-pop']).toBe(1);
  });

  it('an extended lease keeps the message held', () => {
    const extend = (t: number, until: number, ok = true): HistoryEvent => ({ type: 'extend', invokedAt: t, t, actor: 'c1', id: 'm', ok, leaseUntil: until });
    const base = [push('m', 0), deliver('m', 10, 'c1')];
    expect(kinds([...base, extend(400, 2_000), deliver('m', 800, 'c2')])['double-pop']).toBe(1);
    expect(kinds([...base, extend(400, 2_000, false), deliver('m', 800, 'c2'), ack('m', 900, 'c2')])['double-pop']).toBe(0);
    expect(kinds([...base, extend(600, 2_000), deliver('m', 800, 'c2'), ack('m', 900, 'c2')])['double-pop']).toBe(0);
  });

  it('a push that failed still makes its message expected (not unexpected), and sets its due time', () => {
    expect(kinds([push('m', 0, 100, false), deliver('m', 50, 'c1')])).toMatchObject({ unexpected: 0, early: 1, lost: 0 });
  });

  it('same-time events are ordered push, ack, delivery', () => {
    expect(kinds([deliver('m', 0, 'c1'), push('m', 0), ack('m', 0, 'c1')])).toMatchObject({ unexpected: 0, lost: 0, early: 0 });
  });

  it('names ids, actors and times for every kind', () => {
    const r = checkHistory(
      [push('e', 0, 100), deliver('e', 50, 'c1'), ack('e', 60, 'c1'), deliver('u', 10, 'c3'), push('r', 0), deliver('r', 10, 'c1'), ack('r', 20, 'c1'), deliver('r', 800, 'c2'), push('l', 7)],
      phases,
      settings,
    );
    const by = (k: ViolationKind) => r.violations.find((v) => v.kind === k)!;
    expect(by('early')).toMatchObject({ id: 'e', t: 50, actors: ['c1'], detail: 'delivered at 50, due at 100' });
    expect(by('unexpected')).toMatchObject({ id: 'u', t: 10, actors: ['c3'], detail: 'delivered but never pushed' });
    expect(by('resurrection')).toMatchObject({ id: 'r', t: 800, actors: ['c2'], detail: 'delivered at 800 after an ack returned at 20' });
    expect(by('duplicate')).toMatchObject({ id: 'r', t: 800, actors: ['c1', 'c2'], detail: 'delivered 2 times' });
    expect(by('lost')).toMatchObject({ id: 'l', t: phases.end, actors: ['p'], detail: 'pushed at 7, never delivered' });
    const dp = checkHistory([push('m', 0), deliver('m', 10, 'c1'), deliver('m', 100, 'c2')], phases, settings).violations[0]!;
    expect(dp.detail).toBe('delivered to c2 at 100 while c1 held it (popped at 10, held until 510)');
    const slow = checkHistory([push('s', 0), deliver('s', 2_000, 'c1'), deliver('s', 3_500, 'c2'), ack('s', 3_600, 'c2')], phases, settings);
    expect(slow.violations.find((v) => v.kind === 'slow-recovery')).toMatchObject({ id: 's', t: 3_000, actors: ['c1'], detail: 'lease of c1 ended at 2500; not re-delivered by 3000' });
    expect(r.violations.map((v) => v.t)).toEqual([...r.violations.map((v) => v.t)].sort((a, b) => a - b));
  });

  it('slow recovery is judged only in the liveness phase and only when the allowance ended before the run did', () => {
    const h = [push('s', 0), deliver('s', 100, 'c1'), deliver('s', 1_900, 'c2'), ack('s', 2_000, 'c2')];
    expect(kinds(h)['slow-recovery']).toBe(0);
    const late = [push('s', 0), deliver('s', 9_500, 'c1')];
    expect(checkHistory(late, phases, settings).counts['slow-recovery']).toBe(0);
    expect(checkHistory([push('s', 0), deliver('s', 2_000, 'c1')], phases, settings).properties.unackRecovery).toBe(false);
    expect(checkHistory([push('s', 0), deliver('s', 2_000, 'c1'), ack('s', 2_800, 'c1')], phases, settings).counts['slow-recovery']).toBe(0);
  });
});

describe('history checker agrees with a brute-force reading of the definitions', () => {
  // Single push per id, distinct actors per delivery, times in steps of 100: the shapes where the
  // brute-force reading is unambiguous.
  const idHistory = (id: string) =>
    fc
      .record({
        delay: fc.constantFrom(0, 150),
        pushOk: fc.boolean(),
        deliveries: fc.array(fc.record({ at: fc.integer({ min: 0, max: 20 }), acked: fc.boolean(), ackAfter: fc.integer({ min: 1, max: 8 }) }), {
          maxLength: 3,
        }),
        pushed: fc.boolean(),
      })
      .map(({ delay, pushOk, deliveries, pushed }) => {
        const h: HistoryEvent[] = pushed ? [push(id, 0, delay, pushOk)] : [];
        deliveries.forEach((d, i) => {
          h.push(deliver(id, d.at * 100 + i, `c${i}`, 500));
          if (d.acked) h.push(ack(id, d.at * 100 + i + d.ackAfter * 100, `c${i}`));
        });
        return h;
      });

  it('on random small histories', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom('m1', 'm2', 'm3'), { minLength: 1, maxLength: 3 }).chain((ids) => fc.tuple(...[...new Set(ids)].map(idHistory))), (parts) => {
        const history = parts.flat();
        const fast = checkHistory(history, { livenessStart: 1e9, end: 1e9 + 1 }, settings).counts;
        const slow = bruteForce(history);
        for (const k of Object.keys(slow) as (keyof typeof slow)[]) {
          const kind: ViolationKind = k;
          expect(fast[kind], `${kind} in ${JSON.stringify(history)}`).toBe(slow[k]);
        }
      }),
      { numRuns: Math.round(500 * SCALE) },
    );
  });
});

/** Exactly these violation counts, every other kind zero. */
const ZERO: Record<ViolationKind, number> = { lost: 0, 'double-pop': 0, duplicate: 0, early: 0, 'slow-recovery': 0, resurrection: 0, unexpected: 0 };
const exactly = (h: HistoryEvent[], expected: Partial<Record<ViolationKind, number>> = {}) => expect(kinds(h)).toEqual({ ...ZERO, ...expected });
const remove = (id: string, t: number, ok = true): HistoryEvent => ({ type: 'remove', invokedAt: t, t, actor: 'p', id, ok });

describe('history checker: boundaries of each definition', () => {
  it('each property is true exactly when its kind has no violation', () => {
    const clean = checkHistory([push('m', 0), deliver('m', 10, 'c1'), ack('m', 20, 'c1')], phases, settings).properties;
    expect(clean).toEqual({ atLeastOnce: true, unackRecovery: true, noDoublePop: true });
    expect(checkHistory([push('m', 0)], phases, settings).properties).toEqual({ atLeastOnce: false, unackRecovery: true, noDoublePop: true });
    expect(checkHistory([push('m', 0), deliver('m', 10, 'c1'), deliver('m', 20, 'c2'), ack('m', 30, 'c2')], phases, settings).properties).toEqual({
      atLeastOnce: true,
      unackRecovery: true,
      noDoublePop: false,
    });
  });

  it('a lost message is only lost; ids whose pushes all failed are not counted as pushed', () => {
    exactly([push('m', 0)], { lost: 1 });
    expect(checkHistory([push('m', 0, 0, false), push('n', 0)], phases, settings).pushed).toBe(1);
    exactly([push('m', 0), ack('m', 5, 'c1')]);
  });

  it('a second push before the first is consumed keeps the earlier due time; after an ack or remove it sets a new one', () => {
    exactly([push('m', 0, 100), push('m', 10, 500), deliver('m', 150, 'c1'), ack('m', 160, 'c1')]);
    exactly([push('m', 0, 500), push('m', 10, 100), deliver('m', 150, 'c1'), ack('m', 160, 'c1')]);
    exactly([push('m', 0), deliver('m', 10, 'c1'), ack('m', 20, 'c1'), push('m', 30, 500), deliver('m', 100, 'c2'), ack('m', 110, 'c2')], {
      early: 1,
      duplicate: 1,
    });
    exactly([push('m', 0), remove('m', 5), push('m', 10, 500), deliver('m', 100, 'c2'), ack('m', 110, 'c2')], { early: 1 });
  });

  it('resurrection needs the delivery invoked after the ack returned and no push since', () => {
    const invokedBefore: HistoryEvent = { type: 'deliver', invokedAt: 15, t: 525, actor: 'c2', id: 'm', leaseUntil: 515 };
    exactly([push('m', 0), deliver('m', 10, 'c1'), ack('m', 20, 'c1'), invokedBefore], { duplicate: 1 });
    const invokedAtAck: HistoryEvent = { ...invokedBefore, invokedAt: 20, leaseUntil: 520 };
    exactly([push('m', 0), deliver('m', 10, 'c1'), ack('m', 20, 'c1'), invokedAtAck], { duplicate: 1 });
    exactly([push('m', 0), deliver('m', 10, 'c1'), push('m', 20), ack('m', 20, 'c1'), deliver('m', 600, 'c2'), ack('m', 610, 'c2')], { duplicate: 1 });
    exactly([ack('m', 0, 'c1'), deliver('m', 10, 'c2'), push('m', 20)], { resurrection: 1, lost: 0 });
    exactly([deliver('m', 10, 'c2'), push('m', 20), ack('m', 30, 'c2')]);
  });

  it('double pop: same-instant deliveries collide, a delivery when the hold ends does not', () => {
    exactly([push('m', 0), deliver('m', 10, 'c1'), deliver('m', 10, 'c2'), ack('m', 20, 'c2')], { 'double-pop': 1, duplicate: 1 });
    exactly([push('m', 0), deliver('m', 10, 'c1'), deliver('m', 510, 'c2'), ack('m', 520, 'c2')], { duplicate: 1 });
    exactly([push('m', 0), deliver('m', 10, 'c1'), ack('m', 20, 'c1'), push('m', 20), deliver('m', 20, 'c2'), ack('m', 30, 'c2')], { duplicate: 1 });
  });

  it('an extension invoked exactly when the hold ends still extends it', () => {
    const extend: HistoryEvent = { type: 'extend', invokedAt: 510, t: 510, actor: 'c1', id: 'm', ok: true, leaseUntil: 2_000 };
    exactly([push('m', 0), deliver('m', 10, 'c1'), extend, deliver('m', 800, 'c2'), ack('m', 900, 'c2')], { 'double-pop': 1, duplicate: 1 });
  });

  it('same-time push and remove are ordered push first, whatever order they were recorded in', () => {
    exactly([push('m', 5), remove('m', 5)]);
    exactly([remove('m', 5), push('m', 5)]);
  });

  it('slow recovery: boundaries of the liveness phase, the deadline and the acks', () => {
    // lease ends exactly at the start of the liveness phase: judged
    exactly([push('s', 0), deliver('s', 500, 'c1')], { 'slow-recovery': 1 });
    // deadline exactly at the end of the run: judged
    exactly([push('s', 0), deliver('s', 9_000, 'c1')], { 'slow-recovery': 1 });
    // re-delivered exactly at the deadline: in time
    exactly([push('s', 0), deliver('s', 2_000, 'c1'), deliver('s', 3_000, 'c2'), ack('s', 3_100, 'c2')], { duplicate: 1 });
    // acked (by anyone) no later than the deadline: nothing to recover
    exactly([push('s', 0), deliver('s', 2_000, 'c1'), ack('s', 3_000, 'c9')]);
    exactly([push('s', 0), deliver('s', 2_000, 'c1'), ack('s', 2_900, 'c9')]);
    // removed: nothing to recover
    exactly([push('s', 0), deliver('s', 2_000, 'c1'), remove('s', 2_100)]);
    // an acked hold is never judged, even when a later push re-opens the message
    exactly([push('s', 0), deliver('s', 2_000, 'c1'), ack('s', 2_100, 'c1'), push('s', 2_200), deliver('s', 5_000, 'c2'), ack('s', 5_100, 'c2')], {
      duplicate: 1,
    });
  });

  it('slow recovery names the holder whose lease was not recovered', () => {
    const r = checkHistory([push('s', 0), deliver('s', 2_000, 'c1'), deliver('s', 2_600, 'c2')], phases, settings);
    expect(r.violations.filter((v) => v.kind === 'slow-recovery')).toEqual([
      { kind: 'slow-recovery', id: 's', t: 3_600, actors: ['c2'], detail: 'lease of c2 ended at 3100; not re-delivered by 3600' },
    ]);
  });

  it('violations at the same time are ordered by id', () => {
    const r = checkHistory([push('b', 0), push('c', 0), push('a', 0)], phases, settings);
    expect(r.violations.map((v) => v.id)).toEqual(['a', 'b', 'c']);
  });
});
