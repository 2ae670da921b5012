import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { configurationAround, exploreSeed } from '../../src/sim/campaign/explore.js';
import { runSimulation } from '../../src/sim/run/run.js';
import { replayScenario } from '../../src/sim/run/replay.js';
import { loadScenario, parseScenario, scenarioConfig } from '../../src/sim/run/scenario.js';

vi.mock('../../src/queue/scripts/atomic-common.js', async (importOriginal) => (await import('./planted/scripts.js')).plantEndlessPop(await importOriginal()));

const base = scenarioConfig(loadScenario(join(import.meta.dirname, '..', '..', 'examples', 'gate-setup.json')));
const GATE = ['atLeastOnce', 'unackRecovery', 'noDoublePop', 'acksAreFinal', 'onTime', 'noPhantoms'] as const;

describe('a script that never ends (planted in the Lua and its twin)', () => {
  it('ends the run with a script-time-limit finding that breaks at-least-once, at the same step in every script mode', async () => {
    const config = configurationAround(base, 'gate-0');
    const runs = [];
    for (const scripts of ['twin', 'lua', 'compare'] as const) runs.push(await runSimulation({ ...config, scripts }));
    for (const r of runs) {
      expect(r.stopped?.kind).toBe('script-time-limit');
      expect(r.report.counts['script-time-limit']).toBe(1);
      expect(r.report.properties.atLeastOnce).toBe(false);
      const finding = r.report.violations.find((v) => v.kind === 'script-time-limit')!;
      expect(finding.detail).toMatch(/ran past its budget of \d+ steps: Redis would pass its script time limit and answer BUSY/);
      // The run never reached its end: nothing only the end decides is reported.
      expect(r.report.counts['lost-never-delivered'] + r.report.counts['slow-recovery'] + r.report.counts.late).toBe(0);
      expect(r.traceHash).toBe(runs[0]!.traceHash);
    }
  }, 120_000);

  it('explore shrinks it into a scenario that replays it', async () => {
    const o = await exploreSeed({ seed: 'gate-1', base, require: [...GATE], families: ['client-crash', 'client-pause', 'consumer-clocks'] });
    if ('unfinished' in o) throw new Error('no deadline was given');
    expect(o.gate).toContain('atLeastOnce');
    expect(o.mechanisms.some((m) => m.startsWith('script-time-limit'))).toBe(true);
    expect(o.luaConfirms).toBe(true);
    const scenario = parseScenario(o.scenario);
    expect(scenario.expect.violate).toContain('atLeastOnce');
    expect(scenario.description).toContain('script-time-limit');
    const replay = await replayScenario(scenario);
    expect(replay.problems).toEqual([]);
    expect(replay.result.stopped?.kind).toBe('script-time-limit');
  }, 240_000);
});
