import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { traceLine, type TraceEvent } from '../../src/sim/trace.js';

/** Values as trace events carry them: JSON values, arrays of them, some frozen, some holes of undefined. */
const valueArb: fc.Arbitrary<unknown> = fc.letrec<{ v: unknown }>((tie) => ({
  v: fc.oneof(
    { depthSize: 'small' },
    fc.jsonValue({ maxDepth: 2 }),
    fc.constant(undefined),
    fc.array(tie('v'), { maxLength: 4 }),
    fc.array(tie('v'), { maxLength: 4 }).map((a) => Object.freeze(a)),
  ),
})).v;

const eventArb = fc.record(
  {
    t: fc.oneof(fc.double(), fc.integer({ min: 1.7e12, max: 1.8e12 }).map((n) => n + 0.4626)),
    actor: fc.string(),
    op: fc.string(),
    args: valueArb,
    result: valueArb,
  },
  { requiredKeys: ['t', 'actor', 'op'] },
);

describe('traceLine', () => {
  it('is JSON.stringify of the event, byte for byte (the recorded trace hashes depend on it)', () => {
    fc.assert(
      fc.property(eventArb, (event) => {
        expect(traceLine(event as TraceEvent)).toBe(JSON.stringify(event));
      }),
      { numRuns: 2_000 },
    );
  });

  it('serializes a frozen list once and reuses it, still exactly', () => {
    const keys = Object.freeze(['dynoq.MESSAGE.q', 'dynoq.QUEUE.q.a']);
    const a = { t: 1, actor: 'c', op: 'atomicPop', args: [keys, ['1', 'x"y']], result: [] };
    const b = { t: 2, actor: 'c', op: 'atomicPop', args: [keys, ['2', '\n']], result: null };
    expect(traceLine(a)).toBe(JSON.stringify(a));
    expect(traceLine(b)).toBe(JSON.stringify(b));
  });

  it('leaves out fields JSON leaves out', () => {
    const e = { t: Number.NaN, actor: 'sim', op: 'x', args: () => 1 } as unknown as TraceEvent;
    expect(traceLine(e)).toBe('{"t":null,"actor":"sim","op":"x"}');
  });
});
