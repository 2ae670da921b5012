import { describe, expect, it } from 'vitest';
import { parseSimConfig } from '../../src/sim/run/config.js';
import { CONFIGURATIONS, configurationRun } from '../../src/sim/run/configurations.js';

describe('configurationRun', () => {
  it('gives every named configuration parsed once, with its drawn schedule: parsing it again changes nothing, key order included', () => {
    let withFaults = 0;
    for (const named of CONFIGURATIONS) {
      for (const seed of ['c1', 'c2']) {
        const run = configurationRun(named, seed);
        expect(JSON.stringify(parseSimConfig(run)), `${named.name} ${seed}`).toBe(JSON.stringify(run));
        if (run.faults.length > 0) withFaults++;
      }
    }
    // The schedules are drawn (a check over empty schedules would prove nothing about the faults).
    expect(withFaults).toBeGreaterThan(CONFIGURATIONS.length / 2);
  });
});
