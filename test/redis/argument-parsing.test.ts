import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isOption, parseInteger, parseScore } from '../../src/redis/argument-parsing.js';
import { NOT_FLOAT, NOT_INTEGER, RedisError, SYNTAX } from '../../src/redis/redis-error.js';

// The parsers as first written (checks in Redis's order, no fast path): the reference the fast paths must match.
function referenceScore(s: string | undefined): number {
  if (s === undefined) throw new RedisError(SYNTAX);
  const t = s.toLowerCase();
  if (t === 'inf' || t === '+inf') return Infinity;
  if (t === '-inf') return -Infinity;
  if (s.trim() !== s || s === '') throw new RedisError(NOT_FLOAT);
  const n = Number(s);
  if (Number.isNaN(n)) throw new RedisError(NOT_FLOAT);
  return n;
}
function referenceInteger(s: string | undefined): number {
  if (s === undefined || !/^-?\d+$/.test(s)) throw new RedisError(NOT_INTEGER);
  const n = Number(s);
  if (!Number.isSafeInteger(n)) throw new RedisError(NOT_INTEGER);
  return n;
}

function outcome(f: () => number): { value: number } | { error: string } {
  try {
    return { value: f() };
  } catch (err) {
    return { error: (err as Error).message };
  }
}

/** Arguments as scripts and clients send them, and the near misses. */
const argumentArb = fc.oneof(
  fc.stringMatching(/^-?\d{1,20}$/),
  fc.stringMatching(/^[-+ ]?\d{0,4}(\.\d{0,3})?(e[-+]?\d{1,3})?[ ]?$/),
  fc.constantFrom('inf', '+inf', '-inf', 'INF', '+Inf', ' inf', 'inf ', 'Infinity', '-Infinity', 'nan', 'NaN', '0x10', '1e3', '-0', '', ' ', '-', '--1', '+1', '9007199254740993', '123456789012345', '1234567890123456'),
  fc.string({ maxLength: 6 }),
);

describe('argument parsing', () => {
  it('parseScore answers as the reference parser, value or error', () => {
    fc.assert(
      fc.property(argumentArb, (s) => {
        expect(outcome(() => parseScore(s))).toEqual(outcome(() => referenceScore(s)));
      }),
      { numRuns: 5_000 },
    );
    expect(outcome(() => parseScore(undefined))).toEqual(outcome(() => referenceScore(undefined)));
  });

  it('parseInteger answers as the reference parser, value or error (-0 included)', () => {
    fc.assert(
      fc.property(argumentArb, (s) => {
        const got = outcome(() => parseInteger(s));
        const want = outcome(() => referenceInteger(s));
        expect(got).toEqual(want);
        if ('value' in got && 'value' in want) expect(Object.is(got.value, want.value)).toBe(true);
      }),
      { numRuns: 5_000 },
    );
    expect(outcome(() => parseInteger(undefined))).toEqual(outcome(() => referenceInteger(undefined)));
  });

  it('isOption matches an option in any ASCII case, as strcasecmp does, and nothing else', () => {
    const words = ['nx', 'xx', 'ch', 'limit', 'withscores'];
    const spelling = fc.constantFrom(...words).chain((w) =>
      fc.array(fc.boolean(), { minLength: w.length, maxLength: w.length }).map((up) => [...w].map((c, i) => (up[i] ? c.toUpperCase() : c)).join('')),
    );
    fc.assert(
      fc.property(fc.oneof(spelling, fc.string({ maxLength: 11 }), fc.constantFrom('limi', 'limitt', 'LIMIT ', 'w1thscores', '')), fc.constantFrom(...words), (arg, word) => {
        // Every ASCII-only argument: the comparison it replaces, toLowerCase() === word.
        if (/^[\x00-\x7f]*$/.test(arg)) expect(isOption(arg, word)).toBe(arg.toLowerCase() === word);
        else expect(isOption(arg, word)).toBe(false);
      }),
      { numRuns: 5_000 },
    );
    // Where JavaScript's toLowerCase and Redis differ: the Kelvin sign lower-cases to 'k' in JS only.
    expect(isOption('\u212a', 'k')).toBe(false);
  });
});
