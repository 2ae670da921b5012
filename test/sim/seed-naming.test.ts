import { describe, expect, it } from 'vitest';
import { Rng } from '../../src/sim/kernel/rng.js';
import { configurationRun, TABLE_CONFIGURATIONS } from '../../src/sim/run/configurations.js';

/**
 * The guarantees table runs seeds g0, g1, …; the fidelity page runs fidelity-<row>-0, -1, …. A seed
 * string is hashed into every stream, so a weak hash would make strings that differ in a digit or
 * two draw alike and bias every published cell one way. These checks are deterministic (fixed seed
 * sets); the thresholds are chi-square quantiles at p = 0.001, far above what a sound hash gives.
 */
const ROW = 'dynomite/DC_QUORUM/atomic/node-crash/full';
const SEEDS = 3_000;
const NAMINGS: Record<string, (i: number) => string> = {
  guarantees: (i) => `g${i}`,
  fidelity: (i) => `fidelity-${ROW}-${i}`,
  short: (i) => `x${i}`,
};
/** Chi-square quantiles at p = 0.001 by degrees of freedom. */
const CHI2_999: Record<number, number> = { 2: 13.82, 8: 26.12, 9: 27.88 };

function chiSquare(observed: readonly number[], expected: readonly number[]): number {
  return observed.reduce((sum, o, i) => sum + (o - expected[i]!) ** 2 / expected[i]!, 0);
}

const uniform = (counts: readonly number[]) => chiSquare(counts, counts.map(() => counts.reduce((a, b) => a + b, 0) / counts.length));

describe('seeds named alike draw independently', () => {
  const row = TABLE_CONFIGURATIONS.find((c) => c.name === ROW)!;
  const zones = ['a', 'b', 'c'];

  /** Per naming: how often each (first crash's zone, second crash's zone) pair is drawn. */
  const pairs = Object.fromEntries(
    Object.entries(NAMINGS).map(([naming, seed]) => {
      const counts = new Array<number>(9).fill(0);
      for (let i = 0; i < SEEDS; i++) {
        const crashes = configurationRun(row, seed(i)).faults.filter((f) => f.kind === 'crash-node') as { zone: string }[];
        counts[zones.indexOf(crashes[0]!.zone) * 3 + zones.indexOf(crashes[1]!.zone)]!++;
      }
      return [naming, counts];
    }),
  );

  it.each(Object.keys(NAMINGS))('the %s naming draws its node-crash targets uniformly and each crash independently of the other', (naming) => {
    expect(uniform(pairs[naming]!)).toBeLessThan(CHI2_999[8]!);
  });

  it('two crashes land in two zones as often under every naming (what decides at-least-once on this row)', () => {
    const twoZones = Object.values(pairs).map((c) => SEEDS - c[0]! - c[4]! - c[8]!);
    const share = twoZones.reduce((a, b) => a + b, 0) / (SEEDS * twoZones.length);
    const observed = twoZones.flatMap((k) => [k, SEEDS - k]);
    const expected = twoZones.flatMap(() => [SEEDS * share, SEEDS * (1 - share)]);
    expect(chiSquare(observed, expected)).toBeLessThan(CHI2_999[2]!);
  });

  it.each(Object.keys(NAMINGS))('consecutive %s seeds start their streams with uniform, uncorrelated draws', (naming) => {
    const first = Array.from({ length: SEEDS }, (_, i) => new Rng(NAMINGS[naming]!(i), 'swarm-faults').float());
    const bins = new Array<number>(10).fill(0);
    for (const x of first) bins[Math.floor(x * 10)]!++;
    expect(uniform(bins)).toBeLessThan(CHI2_999[9]!);
    // Lag-1 correlation of seed i's draw with seed i+1's: |r| below 3.3 standard errors (p = 0.001).
    const mean = first.reduce((a, b) => a + b, 0) / SEEDS;
    let cov = 0;
    let varSum = 0;
    for (let i = 0; i < SEEDS; i++) {
      varSum += (first[i]! - mean) ** 2;
      if (i + 1 < SEEDS) cov += (first[i]! - mean) * (first[i + 1]! - mean);
    }
    expect(Math.abs(cov / varSum)).toBeLessThan(3.3 / Math.sqrt(SEEDS));
  });
});
