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
          expect(fast[kind] > 0, `${kind} in ${JSON.stringify(history)}`).toBe(slow[k] > 0);
        }
      }),
      { numRuns: Math.round(500 * SCALE) },
    );
  });
});
