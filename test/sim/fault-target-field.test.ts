import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { configForFile, parseSimConfig } from '../../src/sim/run/config.js';
import { parseScenario, ScenarioError } from '../../src/sim/run/scenario.js';
import { scenarioJsonSchema } from '../../src/sim/run/scenario.js';

/** A scenario with one node crash striking zone `a`, its zone named by `fields`. */
function crashScenario(fields: Record<string, string>): unknown {
  return {
    name: 'crash',
    description: 'a node crash',
    topology: { kind: 'primary-replica', zones: ['a', 'b'] },
    faults: [{ at: 500, kind: 'crash-node', ...fields, loseUnreplicated: false }],
    expect: {},
  };
}

describe('a fault names the zone it strikes `target` (as a history does); `zone` is its deprecated name', () => {
  it('`target` is the name: no deprecation note, and the simulator gets the same fault as before', () => {
    const s = parseScenario(crashScenario({ target: 'a' }));
    expect(s.deprecations).toEqual([]);
    // the simulator's own fault object (and so the trace and its hash) is unchanged
    expect(JSON.stringify(s.faults[0])).toBe(JSON.stringify({ at: 500, kind: 'crash-node', zone: 'a', loseUnreplicated: false }));
  });

  it('`zone` still loads, with a deprecation note naming the field and its new name', () => {
    const s = parseScenario(crashScenario({ zone: 'a' }), 'old.json');
    expect(JSON.stringify(s.faults[0])).toBe(JSON.stringify(parseScenario(crashScenario({ target: 'a' })).faults[0]));
    expect(s.deprecations).toHaveLength(1);
    expect(s.deprecations?.[0]).toMatch(/faults\[0\]\.zone .*deprecated.*`target`/);
  });

  it('both names at once is an error naming the field', () => {
    let err: unknown;
    try {
      parseScenario(crashScenario({ target: 'a', zone: 'a' }), 'both.json');
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ScenarioError);
    expect((err as ScenarioError).issues.join('\n')).toMatch(/faults\.0\.zone: .*`target`.*not both/);
  });

  it('neither name is an error naming `target`', () => {
    expect(() => parseScenario(crashScenario({}))).toThrow(/faults\.0\.target: /);
  });

  it('a fault that strikes an actor or a clock is unchanged: `zone` is no field of it', () => {
    const s = parseScenario({ ...(crashScenario({}) as object), faults: [{ at: 1, kind: 'clock-skew', target: 'consumer-0', offsetMs: 5 }] });
    expect(s.faults[0]).toEqual({ at: 1, kind: 'clock-skew', target: 'consumer-0', offsetMs: 5 });
    expect(() => parseScenario({ ...(crashScenario({}) as object), faults: [{ at: 1, kind: 'clock-skew', target: 'consumer-0', zone: 'a', offsetMs: 5 }] })).toThrow(ScenarioError);
  });

  it('a configuration written to a file names the zone `target`, and reads back to the same configuration', () => {
    const config = parseSimConfig({ topology: { kind: 'dynomite', zones: ['a', 'b', 'c'] }, faults: [{ at: 500, kind: 'stall-backend', target: 'b', durationMs: 100 }, { at: 600, kind: 'clock-jump', target: 'consumer-0', deltaMs: 10 }] });
    const written = JSON.parse(JSON.stringify(configForFile(config))) as { faults: Record<string, unknown>[] };
    expect(written.faults[0]).toEqual({ at: 500, kind: 'stall-backend', target: 'b', durationMs: 100 });
    expect(written.faults[1]).toEqual({ at: 600, kind: 'clock-jump', target: 'consumer-0', deltaMs: 10 });
    expect(JSON.stringify(parseSimConfig(written))).toBe(JSON.stringify(config));
  });

  it('the JSON Schema for editors requires `target` and marks `zone` deprecated', () => {
    const text = JSON.stringify(scenarioJsonSchema());
    const crash = (scenarioJsonSchema() as { properties: { faults: { items: { oneOf?: { properties: Record<string, { const?: string; deprecated?: boolean }>; required: string[] }[]; anyOf?: { properties: Record<string, { const?: string; deprecated?: boolean }>; required: string[] }[] } } } }).properties.faults.items;
    const variant = (crash.oneOf ?? crash.anyOf)!.find((v) => v.properties.kind?.const === 'crash-node')!;
    expect(variant.required).toContain('target');
    expect(variant.properties.zone?.deprecated).toBe(true);
    expect(text.length).toBeGreaterThan(0);
  });

  it('every recorded scenario names its struck zones `target`', () => {
    const files = ['scenarios/primary-crash-loses-pushes.json', 'scenarios/zone-failover-mid-pop.json', 'scenarios/primary-crash-durable-writes.json'];
    for (const file of files) expect(readFileSync(file, 'utf8'), file).not.toMatch(/"zone":/);
  });
});
