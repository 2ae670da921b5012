import { describe, expect, it } from 'vitest';
import type { HistoryOp } from '../../src/model/history.js';
import { seriesOf } from '../../src/report/series.js';

const base = { outcome: 'ok' as const };

describe('report plots: seriesOf', () => {
  it('bins deliveries per second, latency from the due time, and holds until the ack or the lease end', () => {
    const history: HistoryOp[] = [
      { type: 'push', process: 'p', id: 'a', invokedAt: 0, completedAt: 10, delayMs: 500, ...base },
      { type: 'push', process: 'p', id: 'b', invokedAt: 0, completedAt: 10, delayMs: 0, ...base },
      { type: 'deliver', process: 'w', id: 'a', invokedAt: 1_000, completedAt: 1_500, leaseUntil: 6_000, ...base },
      { type: 'ack', process: 'w', id: 'a', invokedAt: 3_200, completedAt: 3_500, ...base },
      // b: held until its lease ran out (no ack), then delivered again and acked
      { type: 'deliver', process: 'v', id: 'b', invokedAt: 1_000, completedAt: 1_200, leaseUntil: 2_000, ...base },
      { type: 'deliver', process: 'w', id: 'b', invokedAt: 5_000, completedAt: 5_100, leaseUntil: 9_000, ...base },
      { type: 'ack', process: 'w', id: 'b', invokedAt: 5_200, completedAt: 5_300, ...base },
    ];
    const s = seriesOf(history, 0, 10_000, 10);
    expect(s.binMs).toBe(1_000);
    expect(s.deliveriesPerSecond).toEqual([0, 2, 0, 0, 0, 1, 0, 0, 0, 0]);
    // a: 1500 − 500 due; b: 1200 − 0 → mean 1100 in bin 1; b again: 5100 − 0
    expect(s.latencyMs).toEqual([null, 1_100, null, null, null, 5_100, null, null, null, null]);
    expect(s.holdsInFlight).toEqual([0, 2, 1, 1, 0, 1, 0, 0, 0, 0]);
  });
});
