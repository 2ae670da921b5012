import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { InvalidArgumentError } from '../../src/queue/errors.js';
import { luaRunCount } from '../../src/redis/lua-engine.js';
import { runSimulation } from '../../src/sim/run/run.js';
import { loadScenario, scenarioConfig } from '../../src/sim/run/scenario.js';
import { setSimScriptMode } from '../../src/sim/store/sim-node.js';

/**
 * Exact Lua and twins are interchangeable: a scenario run with every script in Redis's Lua gives the
 * trace hash recorded for it (recorded in twin mode, the default). A sample of the scenarios: both
 * topologies, both queue modes, partitions, crashes, failover, clock skew, server time and WAIT.
 */
const SAMPLE = [
  'consumer-crash-unack-recovery.json',
  'clock-skew-server-time.json',
  'one-way-partition.json',
  'primary-crash-durable-writes.json',
  'replica-lag-dc-one.json',
  'zone-failover-mid-pop.json',
];

describe('exact Lua, compare and twin mode give the same trace', () => {
  afterEach(() => {
    setSimScriptMode('twin');
  });

  it.each(SAMPLE)('%s', async (file) => {
    const scenario = loadScenario(join(import.meta.dirname, '..', '..', 'scenarios', file));
    setSimScriptMode('twin');
    const before = luaRunCount();
    const twin = await runSimulation(scenarioConfig(scenario));
    const luaInTwinMode = luaRunCount() - before;
    setSimScriptMode('lua');
    const lua = await runSimulation(scenarioConfig(scenario));
    const luaInLuaMode = luaRunCount() - before - luaInTwinMode;
    setSimScriptMode('twin');
    // Compare mode (the Lua, each twin call checked against it) finds no difference, and the same trace.
    const compared = await runSimulation({ ...scenarioConfig(scenario), scripts: 'compare' });
    expect(compared.stopped).toBeNull();
    expect(compared.report.exercised.twinsMatchLua).toBe(true);
    expect(twin.traceHash).toBe(scenario.expect.traceHash);
    expect(lua.traceHash).toBe(twin.traceHash);
    expect(compared.traceHash).toBe(twin.traceHash);
    // The two runs took different paths: the scripts ran in Lua only in exact mode, except the few
    // without a twin (atomic-release, when a pop fails midway: zone-failover-mid-pop since its client
    // waits 5 s, issue 29). Legacy mode runs no scripts in this workload: its hash equality is then the
    // trivial case.
    expect(luaInTwinMode).toBeLessThanOrEqual(10);
    if (scenario.queue.mode === 'atomic') expect(luaInLuaMode).toBeGreaterThan(100 + luaInTwinMode);
  }, 120_000);
});

describe('DYNOQ_SCRIPTS', () => {
  const saved = process.env.DYNOQ_SCRIPTS;
  afterEach(() => {
    if (saved === undefined) delete process.env.DYNOQ_SCRIPTS;
    else process.env.DYNOQ_SCRIPTS = saved;
    setSimScriptMode('twin');
  });

  it('a value other than twin or lua is an InvalidArgumentError naming both, not a silent twin run', async () => {
    process.env.DYNOQ_SCRIPTS = 'bogus';
    setSimScriptMode(undefined);
    const config = scenarioConfig(loadScenario(join(import.meta.dirname, '..', '..', 'scenarios', 'consumer-crash-unack-recovery.json')));
    await expect(runSimulation(config)).rejects.toBeInstanceOf(InvalidArgumentError);
    await expect(runSimulation(config)).rejects.toThrow(`invalid DYNOQ_SCRIPTS: "bogus" is not 'twin', 'lua' or 'compare'`);
    process.env.DYNOQ_SCRIPTS = 'lua';
    const before = luaRunCount();
    await runSimulation(config);
    expect(luaRunCount()).toBeGreaterThan(before);
  });
});
