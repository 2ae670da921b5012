import { describe, expect, it } from 'vitest';
import { CONFIGURATIONS, configurationRun, SAME_RUNS, sameRunsConfigurations, TABLE_CONFIGURATIONS, TABLE_PROFILE } from '../../src/sim/run/configurations.js';
import { runSimulation } from '../../src/sim/run/run.js';

/** The trace after its first line (the configuration it starts with, which names the set-up). */
const afterStart = (text: string) => text.slice(text.indexOf('\n') + 1);

describe('rows that stand for two set-ups (SAME_RUNS)', () => {
  const pairs = sameRunsConfigurations(TABLE_PROFILE);

  it('the measured configuration is a published row; the one it stands for is no row at all', () => {
    expect(pairs).toHaveLength(SAME_RUNS.length);
    for (const { measured, dropped } of pairs) {
      expect(TABLE_CONFIGURATIONS.map((c) => c.name)).toContain(measured.name);
      expect(CONFIGURATIONS.map((c) => c.name)).not.toContain(dropped.name);
    }
  });

  // The evidence is 200 seeds per pair (the ROWS comment); here two seeds each on every run.
  for (const { same, measured, dropped } of pairs) {
    it(`${same.setup} under ${same.faults} runs as ${same.measuredAs} does: the same trace after the start line`, async () => {
      for (const seed of ['g0', 'g1']) {
        const a = await runSimulation({ ...configurationRun(measured, seed), keepTrace: true });
        const b = await runSimulation({ ...configurationRun(dropped, seed), keepTrace: true });
        // different set-ups (the start line differs), the same run after it
        expect(a.traceText!.slice(0, a.traceText!.indexOf('\n'))).not.toBe(b.traceText!.slice(0, b.traceText!.indexOf('\n')));
        expect(afterStart(b.traceText!) === afterStart(a.traceText!), `${dropped.name} seed ${seed}`).toBe(true);
        expect(b.faults.length).toBeGreaterThan(0);
      }
    }, 120_000);
  }
});
