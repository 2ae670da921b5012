import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { runSimulation } from '../../src/sim/run/run.js';
import { runBudget } from '../../src/sim/run/run-budget.js';
import { loadScenario, scenarioConfig } from '../../src/sim/run/scenario.js';

// A budget far below what the run needs stands in for a run that would never end.
vi.mock('../../src/sim/run/run-budget.js', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../src/sim/run/run-budget.js')>();
  return { ...real, runBudget: (c: Parameters<typeof real.runBudget>[0]) => ({ ...real.runBudget(c), events: 500 }) };
});

const config = scenarioConfig(loadScenario(join(import.meta.dirname, '..', '..', 'scenarios', 'consumer-crash-unack-recovery.json')));

describe('a run past its event budget', () => {
  it('stops with an event-budget finding that breaks at-least-once, the same way on every run', async () => {
    expect(runBudget(config).events).toBe(500);
    const a = await runSimulation(config);
    const b = await runSimulation(config);
    expect(a.stopped?.kind).toBe('event-budget');
    expect(a.kernelEvents).toBe(501);
    expect(a.report.counts['event-budget']).toBe(1);
    expect(a.report.violations.find((v) => v.kind === 'event-budget')).toMatchObject({ id: 'run', detail: expect.stringMatching(/passed its budget of 500 events/) });
    expect(a.report.properties.atLeastOnce).toBe(false);
    expect(b.traceHash).toBe(a.traceHash);
  }, 60_000);
});
