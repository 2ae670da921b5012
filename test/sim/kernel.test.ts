import { describe, expect, it } from 'vitest';
import { Kernel } from '../../src/sim/kernel.js';

describe('Kernel', () => {
  it('a cancelled event never runs, and the clock does not stop at its time', async () => {
    const k = new Kernel(0);
    const ran: string[] = [];
    const seen: number[] = [];
    k.quietAt(5, () => ran.push('cancelled')).cancel();
    k.at(10, () => {
      ran.push('kept');
      seen.push(k.now);
    });
    await k.runUntil(7);
    expect(k.now).toBe(7);
    await k.runUntil(20);
    expect(ran).toEqual(['kept']);
    expect(seen).toEqual([10]);
    expect(k.eventsExecuted).toBe(1);
  });

  it('after a quiet event that settled a promise (settled()), its continuations run before the next event', async () => {
    const k = new Kernel(0);
    const order: string[] = [];
    let wake!: () => void;
    void new Promise<void>((r) => (wake = r)).then(() => order.push('continuation'));
    k.quietAt(1, () => {
      k.settled();
      wake();
    });
    k.at(1, () => order.push('next event'));
    await k.runUntil(2);
    expect(order).toEqual(['continuation', 'next event']);
  });

  it('an ordinary event always lets its continuations run before the next event', async () => {
    const k = new Kernel(0);
    const order: string[] = [];
    let wake!: () => void;
    void new Promise<void>((r) => (wake = r)).then(() => order.push('continuation'));
    k.at(1, () => wake());
    k.at(1, () => order.push('next event'));
    await k.runUntil(2);
    expect(order).toEqual(['continuation', 'next event']);
  });
});
