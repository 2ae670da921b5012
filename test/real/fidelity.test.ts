import { describe, expect, it } from 'vitest';
import { PROPERTY_NAMES } from '../../src/model/properties.js';
import { agreement, FIDELITY_ROWS, formatFidelity, mergeFidelity, type FidelityMeasurement, type RowFidelity, type Tally } from '../../src/real/twin/fidelity.js';
import { CONFIGURATIONS } from '../../src/sim/run/configurations.js';

const tally = (violated: number, exercised: number): Tally => Object.fromEntries(PROPERTY_NAMES.map((p) => [p, { violated, exercised }])) as Tally;
const row = (name: string, real: Tally): RowFidelity => ({
  row: name,
  description: 'd',
  simSeeds: 40,
  simulated: tally(0, 40),
  simulatedTwins: tally(0, 6),
  real,
  realRuns: 6,
  skipped: 0,
  replicasEqual: null,
  faultErrors: [],
  realSeconds: 60,
});
const measured = (rows: RowFidelity[]): FidelityMeasurement => ({ rows, options: { realRuns: 6, simSeeds: 40, budgetMs: 60_000 } });

describe('the fidelity table', () => {
  it('every fidelity row is a row of the guarantees table, and the required ones are there', () => {
    for (const r of FIDELITY_ROWS) expect(CONFIGURATIONS.map((c) => c.name)).toContain(r.name);
    for (const name of ['primary-replica/atomic/none', 'primary-replica/atomic/node-crash', 'primary-replica/atomic+server-time+durable/node-crash', 'primary-replica/atomic/client-crash', 'primary-replica/atomic/clock', 'dynomite/DC_SAFE_QUORUM/atomic/node-stall', 'dynomite/DC_QUORUM/atomic/backend-crash']) {
      expect(FIDELITY_ROWS.map((r) => r.name)).toContain(name);
    }
  });

  it('agree when the 95 % intervals overlap; otherwise the side that breaks the property more often is named', () => {
    expect(agreement({ violated: 0, exercised: 40 }, { violated: 0, exercised: 6 })).toBe('agree');
    expect(agreement({ violated: 0, exercised: 40 }, { violated: 1, exercised: 6 })).toBe('agree');
    expect(agreement({ violated: 0, exercised: 40 }, { violated: 5, exercised: 6 })).toBe('simulator gentler');
    expect(agreement({ violated: 38, exercised: 40 }, { violated: 0, exercised: 6 })).toBe('simulator harsher');
  });

  it('a partial measurement replaces its rows in the earlier one, in table order, and the table shows every row', () => {
    const [first, second] = [FIDELITY_ROWS[0]!.name, FIDELITY_ROWS[1]!.name];
    const earlier = measured([row(first, tally(0, 6)), row(second, tally(0, 6))]);
    const merged = mergeFidelity(earlier, measured([row(second, tally(6, 6))]));
    expect(merged.rows.map((r) => r.row)).toEqual([first, second]);
    expect(merged.rows[1]!.real.atLeastOnce).toEqual({ violated: 6, exercised: 6 });
    const md = formatFidelity(merged, { [second]: 'because.' });
    expect(md).toContain(`| ${first} | 6 | none (agree) |`);
    expect(md).toMatch(new RegExp(`\\| ${second.replace(/[/+]/g, '\\$&')} \\| 6 \\| at-least-once: simulator gentler`));
    expect(md).toContain('**Why they differ.** because.');
  });
});
