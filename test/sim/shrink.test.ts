import { describe, expect, it } from 'vitest';
import { parseSimConfig } from '../../src/sim/config.js';
import { configProblems } from '../../src/sim/config-problems.js';
import { shrink } from '../../src/sim/shrink.js';

describe('shrink', () => {
  it('never tries a set-up that orphans a fault (a clock skew aimed at a consumer it removed)', async () => {
    const config = parseSimConfig({
      seed: 'orphan',
      topology: { kind: 'primary-replica', zones: ['a', 'b'] },
      workload: { messages: 6, producers: 1, consumers: 4, consumerBatch: 2 },
      faults: [{ at: 100, kind: 'clock-skew', target: 'consumer-3', offsetMs: 500 }],
      phases: { safetyMs: 1_000, livenessMs: 5_000 },
    });
    // "Still fails" while the fault is there: the shrinker keeps it and shrinks everything else, and
    // must skip the set-ups with fewer than four consumers (consumer-3 would not exist).
    const small = await shrink(config, (r) => r.config.faults.length > 0, { keepLiveness: false, maxRuns: 40 });
    expect(configProblems(small.config)).toEqual([]);
    expect(small.config.workload.messages).toBeLessThan(6);
    expect(small.config.workload.consumers).toBe(4);
    expect(small.runs).toBeGreaterThan(1);
  }, 60_000);
});
