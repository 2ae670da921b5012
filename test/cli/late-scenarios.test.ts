import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadScenario, scenarioConfig } from '../../src/sim/run/scenario.js';
import { runSimulation } from '../../src/sim/run/run.js';
import { dynoq, root } from '../support/dynoq-cli.js';

const file = (kind: string) => join(root, 'scenarios', 'late', `clock-behind-${kind}.json`);

describe('late is judged: consumers whose clocks run 3 s behind (docs/CHECKER.md §3)', () => {
  it('client time: dynoq sim exits 1, naming delivered promptly and the late messages', async () => {
    const r = await dynoq(['sim', file('client-time')], root);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stdout).toContain('delivered promptly VIOLATED');
    expect(r.stdout).toContain('expected to hold but violated: deliveredPromptly');
    expect(r.stdout).toMatch(/late: \d+ message\(s\)/);
    expect(r.stdout).toMatch(/- m\d+ at t\+\d+ ms \[consumer-\d/);
  }, 120_000);

  it('server time: the same set-up exits 0, nothing late', async () => {
    const r = await dynoq(['sim', file('server-time')], root);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toContain('delivered promptly held');
  }, 120_000);

  it.each(['client-time', 'server-time'])('%s replays its recorded trace hash; on time holds, and lateness moves with the clock source', async (kind) => {
    const scenario = loadScenario(file(kind));
    const result = await runSimulation(scenarioConfig(scenario));
    expect(result.traceHash).toBe(scenario.expect.traceHash);
    expect(result.report.properties.onTime).toBe(true);
    expect(result.report.exercised.deliveredPromptly).toBe(true);
    if (kind === 'client-time') expect(result.report.lateness.p50).toBeGreaterThan(2_500);
    else expect(result.report.lateness.p99).toBeLessThan(500);
  }, 120_000);
});
