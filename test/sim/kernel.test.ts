import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Kernel } from '../../src/sim/kernel/kernel.js';

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

describe('Kernel event order', () => {
  it('runs events by time, and events at one time in the order they were scheduled (whatever the mix of times)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.tuple(fc.integer({ min: 0, max: 30 }), fc.boolean(), fc.boolean()), { maxLength: 300 }), async (plan) => {
        const k = new Kernel(0);
        const ran: number[] = [];
        const handles = plan.map(([at, quiet], i) => (quiet ? k.quietAt(at, () => ran.push(i)) : (k.at(at, () => ran.push(i)), null)));
        plan.forEach(([, , cancel], i) => cancel && handles[i]?.cancel());
        await k.runUntil(100);
        const expected = plan
          .map(([at, quiet, cancel], i) => ({ at, i, dropped: quiet && cancel }))
          .filter((e) => !e.dropped)
          .sort((x, y) => x.at - y.at || x.i - y.i)
          .map((e) => e.i);
        expect(ran).toEqual(expected);
      }),
      { numRuns: 300 },
    );
  });
});

describe('Kernel budgets', () => {
  it('stops a run that passes its event budget (an event that reschedules itself forever at one instant)', async () => {
    const k = new Kernel(0);
    k.eventBudget = 50;
    let ran = 0;
    const spin = () => {
      ran++;
      k.after(0, spin);
    };
    k.at(10, spin);
    await k.runUntil(1_000);
    expect(ran).toBe(51);
    expect(k.stopped).toMatchObject({ kind: 'event-budget', t: 10 });
    // Once stopped, nothing more runs.
    await k.runUntil(2_000);
    expect(ran).toBe(51);
  });

  it('stops at a wall deadline read between events, and keeps the first stop', async () => {
    const k = new Kernel(0);
    let wall = 0;
    k.wallDeadline = { now: () => wall, at: 100 };
    const tick = () => {
      wall++;
      k.after(1, tick);
    };
    k.at(0, tick);
    await k.runUntil(1_000_000);
    expect(k.stopped?.kind).toBe('time-budget');
    k.stop({ kind: 'event-budget', detail: 'later' });
    expect(k.stopped?.kind).toBe('time-budget');
  });
});
