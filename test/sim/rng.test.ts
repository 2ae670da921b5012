import fc from 'fast-check';
import seedrandom from 'seedrandom';
import { describe, expect, it } from 'vitest';
import { Rng } from '../../src/sim/kernel/rng.js';

describe('Rng', () => {
  it('id128 is four 32-bit draws of the named stream in fixed-width hex (the lease tokens recorded traces hold)', () => {
    fc.assert(
      fc.property(fc.string(), fc.integer({ min: 1, max: 50 }), (seed, n) => {
        const rng = new Rng(seed, 'ids');
        const next = seedrandom(`${seed}/ids`);
        for (let k = 0; k < n; k++) {
          let expected = '';
          for (let i = 0; i < 4; i++) expected += Math.floor(next() * 2 ** 32).toString(16).padStart(8, '0');
          expect(rng.id128()).toBe(expected);
        }
      }),
    );
  });

  it('id128 pads small draws with leading zeros', () => {
    // A stream whose draws are all tiny: every byte but the low one is zero.
    const rng = new Rng('s');
    (rng as unknown as { next: () => number }).next = () => 5 / 2 ** 32;
    expect(rng.id128()).toBe('00000005'.repeat(4));
  });
});
