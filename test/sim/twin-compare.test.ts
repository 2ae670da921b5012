import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { configurationAround, exploreSeed } from '../../src/sim/campaign/explore.js';
import { runSimulation } from '../../src/sim/run/run.js';
import { replayScenario } from '../../src/sim/run/replay.js';
import { loadScenario, parseScenario, scenarioConfig } from '../../src/sim/run/scenario.js';

// The Lua of ack leaves the id in its UNACK set; the twin is right. Invisible to twin runs.
vi.mock('../../src/queue/scripts/atomic-common.js', async (importOriginal) => (await import('./planted/scripts.js')).plantLuaOnlyAck(await importOriginal()));

const base = scenarioConfig(loadScenario(join(import.meta.dirname, '..', '..', 'examples', 'gate-setup.json')));

describe('a regression in the Lua only', () => {
  it('passes on the twins and ends a compare run with a twin-differs finding (twinsMatchLua violated)', async () => {
    const config = configurationAround(base, 'gate-0');
    const twin = await runSimulation({ ...config, scripts: 'twin' });
    expect(twin.stopped).toBeNull();
    expect(twin.report.exercised.twinsMatchLua).toBe(false);
    expect(twin.report.properties.twinsMatchLua).toBe(true);
    const compared = await runSimulation({ ...config, scripts: 'compare' });
    expect(compared.stopped?.kind).toBe('twin-differs');
    expect(compared.report.properties.twinsMatchLua).toBe(false);
    const finding = compared.report.violations.find((v) => v.kind === 'twin-differs')!;
    expect(finding.id).toMatch(/^atomicAck/);
    expect(finding.detail).toMatch(/key \S*UNACK\S* after the Lua: .*m0.*; after the twin: /);
  }, 120_000);

  it('fails the gate whatever --require says, and the shrunk scenario replays it', async () => {
    const o = await exploreSeed({ seed: 'gate-0', base, scripts: 'compare', require: ['noPhantoms'], families: ['client-crash'] });
    if ('unfinished' in o) throw new Error('no deadline was given');
    expect(o.gate).toEqual(['twinsMatchLua']);
    const scenario = parseScenario(o.scenario);
    expect(scenario.scripts).toBe('compare');
    expect(scenario.expect.violate).toEqual(['twinsMatchLua']);
    expect((await replayScenario(scenario)).problems).toEqual([]);
  }, 240_000);
});
