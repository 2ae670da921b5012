import { PROPERTY_NAMES, type PropertyName } from '../../src/model/properties.js';
import { wilson, type GuaranteeRow, type PropertyCell } from '../../src/sim/campaign/guarantees.js';
import { CONFIGURATIONS } from '../../src/sim/run/configurations.js';
import { mechanismKey } from '../../src/sim/campaign/mechanisms.js';

/**
 * A measured row of the guarantees table made up for a test: 10 runs of the named configuration, every
 * property exercised in each; `violated` says in how many runs each property broke (one mechanism each).
 */
export function tableRow(name: string, violated: Partial<Record<PropertyName, number>>, runs = 10): GuaranteeRow {
  const configuration = CONFIGURATIONS.find((c) => c.name === name);
  if (!configuration) throw new Error(`no configuration ${name}`);
  const cells = Object.fromEntries(
    PROPERTY_NAMES.map((p): [PropertyName, PropertyCell] => {
      const v = violated[p] ?? 0;
      const mechanism = p === 'atLeastOnce' ? ({ kind: 'lost-after-delivery', cause: 'node-crash (writes lost)' } as const) : ({ kind: 'double-pop', cause: configuration.faults } as const);
      return [p, { violated: v, exercised: runs, interval: wilson(v, runs), affectedMedian: v > 0 ? 1 : 0, affectedMax: v, firstSeed: v > 0 ? 'g1' : null, mechanisms: v > 0 ? [{ ...mechanism, key: mechanismKey(mechanism), runs: v, firstSeed: 'g1' }] : [] }];
    }),
  ) as Record<PropertyName, PropertyCell>;
  return {
    configuration,
    runs,
    exposedRuns: configuration.faults === 'none' ? null : runs,
    promotionRuns: 0,
    divergedRuns: null,
    cells,
    lateness: { p50: 0, p99: 0, max: 0 },
    boundMs: 100,
    raceRuns: { abortAfterLease: 0, consumeAbortedAfterLease: 0, ensureFromTwoShards: 0, rescheduleVsPop: 0, extendVsPop: 0, errorMidConsumeBatch: 0 },
  };
}
