import { describe, expect, it } from 'vitest';
import { PROPERTY_NAMES, type PropertyName } from '../../src/model/properties.js';
import { firstShowings } from '../../src/cli/commands/guarantees.js';
import { CONFIGURATIONS } from '../../src/sim/run/configurations.js';
import { type GuaranteeRow, type PropertyCell } from '../../src/sim/campaign/guarantees.js';
import { guaranteesData } from '../../src/sim/campaign/guarantees-data.js';
import { guaranteesPage } from '../../src/sim/campaign/guarantees-page.js';
import { scenarioName } from '../../src/sim/campaign/mechanism-scenarios.js';

const MECHANISM = { kind: 'lost-after-delivery', cause: 'no fault: an ack was refused or unanswered' } as const;
const KEY = 'lost-after-delivery ← no fault: an ack was refused or unanswered';

/** A row of `configuration` whose at-least-once cell shows KEY in 3 of 10 runs. */
function rowOf(name: string): GuaranteeRow {
  const configuration = CONFIGURATIONS.find((c) => c.name === name)!;
  const held: PropertyCell = { violated: 0, exercised: 10, interval: { low: 0, high: 0.28 }, affectedMedian: 0, affectedMax: 0, firstSeed: null, mechanisms: [] };
  const cells = Object.fromEntries(PROPERTY_NAMES.map((p) => [p, held])) as Record<PropertyName, PropertyCell>;
  cells.atLeastOnce = { ...held, violated: 3, firstSeed: 'g1', mechanisms: [{ ...MECHANISM, key: KEY, runs: 3, firstSeed: 'g1' }] };
  return { configuration, runs: 10, exposedRuns: null, promotionRuns: 0, divergedRuns: null, cells, lateness: { p50: 0, p99: 0, max: 0 }, boundMs: 100, raceRuns: { abortAfterLease: 0, consumeAbortedAfterLease: 0, ensureFromTwoShards: 0, rescheduleVsPop: 0, extendVsPop: 0, errorMidConsumeBatch: 0 } };
}

/** The lines of one topology's recommendation on the page. */
function section(md: string, topology: string): string {
  const start = md.indexOf(`### ${topology}: `);
  expect(start).toBeGreaterThanOrEqual(0);
  const ends = ['\n### ', '\n## '].map((h) => md.indexOf(h, start + 1)).filter((i) => i >= 0);
  return md.slice(start, ends.length > 0 ? Math.min(...ends) : undefined);
}

describe('mechanism scenarios in the guarantees table', () => {
  it('a scenario is linked only from rows of the set-up it was shrunk on', () => {
    const dyn = rowOf('dynomite/DC_QUORUM/legacy/none');
    const pr = rowOf('primary-replica/legacy/none');
    // One shrink per (set-up, mechanism): both rows get their own.
    expect(firstShowings([dyn, pr], 10).map((s) => s.configuration)).toEqual([dyn.configuration.name, pr.configuration.name]);
    const file = 'scenarios/mechanisms/dynomite-dc-quorum-legacy-x.json';
    const data = guaranteesData({ rows: [dyn, pr], command: 'test', timing: null, seeds: 10, scenarios: [{ setup: dyn.configuration.setup, key: KEY, file }], advise: () => null });
    const md = guaranteesPage(data);
    expect(section(md, 'dynomite')).toContain(file);
    // The primary-replica row showed the same mechanism, but a Dynomite run is no evidence about it.
    expect(section(md, 'primary-replica')).toContain(KEY);
    expect(section(md, 'primary-replica')).not.toContain(file);
  });

  it('names of two mechanisms that differ only past the length cut differ', () => {
    const setup = 'dynomite/DC_QUORUM/legacy';
    const a = scenarioName(setup, { kind: 'lost-never-delivered', cause: 'node-crash (requests refused) + node-crash (restarted)' });
    const b = scenarioName(setup, { kind: 'lost-never-delivered', cause: 'node-crash (requests refused) + node-crash (restarted) + node-crash (writes lost)' });
    expect(a).not.toBe(b);
    for (const n of [a, b]) expect(n.length).toBeLessThanOrEqual(90);
    expect(scenarioName(setup, { kind: 'double-pop', cause: 'partition' })).toBe('dynomite-dc-quorum-legacy-double-pop-from-partition');
  });
});
