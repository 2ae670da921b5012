import { describe, expect, it } from 'vitest';
import type { MessageOp } from '../../src/model/history.js';
import { OpenMessages } from '../../src/model/open-messages.js';

const op = (type: string, id: string, t: number) => ({ type, id, process: 'c', invokedAt: t, completedAt: t + 1, outcome: 'ok', delayMs: 0, leaseUntil: t + 10 }) as unknown as MessageOp;

describe('OpenMessages', () => {
  it('keeps each message\'s operations in file order and grouped by type, reusing the slots of closed messages', () => {
    const open = new OpenMessages();
    const a = [op('push', 'a', 1), op('deliver', 'a', 3), op('ack', 'a', 5), op('deliver', 'a', 7)];
    const b = [op('ensure', 'b', 2), op('release', 'b', 4), op('push', 'b', 6), op('kept-back', 'b', 7)];
    let slotA = -1;
    let slotB = -1;
    for (let i = 0; i < 4; i++) {
      slotA = open.add(a[i]!);
      slotB = open.add(b[i]!);
    }
    expect(open.size).toBe(2);
    expect(open.ids()).toEqual(['a', 'b']);
    expect(open.opsOf(slotA)).toEqual(a);
    expect(open.opsOf(slotB)).toEqual(b);
    const m = open.grouped(slotA);
    expect(m.pushes).toEqual([a[0]]);
    expect(m.deliveries).toEqual([a[1], a[3]]);
    expect(m.acks).toEqual([a[2]]);
    expect([m.keptBack, m.extends, m.removes, m.reschedules, m.releases]).toEqual([[], [], [], [], []]);
    const mb = open.grouped(slotB);
    expect(mb.pushes).toEqual([b[0], b[2]]);
    expect(mb.releases).toEqual([b[1]]);
    expect(mb.keptBack).toEqual([b[3]]);
    expect(open.ordinalOf(slotA)).toBe(0);
    expect(open.ordinalOf(slotB)).toBe(1);
    open.close('a', slotA);
    expect(open.slotOfId('a')).toBeUndefined();
    // A new message takes the freed slots: b's chain and the new one's stay apart.
    const c = [op('push', 'c', 8), op('remove', 'c', 9)];
    const slotC = open.add(c[0]!);
    open.add(op('extend', 'b', 10));
    open.add(c[1]!);
    expect(open.opsOf(slotC)).toEqual(c);
    expect(open.ordinalOf(slotC)).toBe(2);
    expect(open.opsOf(slotB).map((o) => o.type)).toEqual(['ensure', 'release', 'push', 'kept-back', 'extend']);
    expect(open.grouped(slotC).removes).toEqual([c[1]]);
    expect(open.ids()).toEqual(['b', 'c']);
  });

  it('holds many messages at once and grows past its first sizes', () => {
    const open = new OpenMessages();
    const slots = new Map<string, number>();
    for (let round = 0; round < 3; round++) for (let i = 0; i < 2000; i++) slots.set(`m${i}`, open.add(op(round === 0 ? 'push' : 'deliver', `m${i}`, round * 10_000 + i)));
    expect(open.size).toBe(2000);
    for (const [id, slot] of slots) {
      const m = open.grouped(slot);
      expect(m.pushes.map((p) => p.id)).toEqual([id]);
      expect(m.deliveries.map((d) => d.invokedAt)).toEqual([10_000 + Number(id.slice(1)), 20_000 + Number(id.slice(1))]);
      open.close(id, slot);
    }
    expect(open.size).toBe(0);
  });
});
