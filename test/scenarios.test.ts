import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runSimulation } from '../src/sim/run/run.js';
import { loadScenario, parseScenario, ScenarioError, scenarioConfig, scenarioJsonSchema } from '../src/sim/run/scenario.js';

const DIR = join(import.meta.dirname, '..', 'scenarios');
/** Hand-made scenarios, and one shrunk scenario per mechanism the guarantees table found. */
const files = [
  ...readdirSync(DIR).filter((f) => f.endsWith('.json')),
  ...readdirSync(join(DIR, 'mechanisms')).filter((f) => f.endsWith('.json')).map((f) => join('mechanisms', f)),
];

describe('every scenario file replays as recorded', () => {
  it('there are scenario files to replay', () => {
    expect(files.length).toBeGreaterThanOrEqual(8);
  });

  it.each(files)('%s', async (file) => {
    const scenario = loadScenario(join(DIR, file));
    const result = await runSimulation(scenarioConfig(scenario));
    for (const p of scenario.expect.hold) expect(result.report.properties[p], `${p} should hold`).toBe(true);
    for (const p of scenario.expect.violate) expect(result.report.properties[p], `${p} should be violated`).toBe(false);
    expect(scenario.expect.traceHash, 'a recorded trace hash').toBeDefined();
    expect(result.traceHash).toBe(scenario.expect.traceHash);
  }, 600_000);
});

describe('scenario validation names the bad field', () => {
  const good = { name: 'ok', description: 'd', expect: {} };
  it('accepts a minimal scenario and fills defaults', () => {
    expect(parseScenario(good).workload.messages).toBe(200);
  });
  it.each([
    [{ ...good, name: 'Bad Name' }, 'name'],
    [{ ...good, workload: { messages: -1 } }, 'workload.messages'],
    [{ ...good, queue: { mode: 'fast' } }, 'queue.mode'],
    [{ ...good, faults: [{ at: 0, kind: 'meteor' }] }, 'faults.0.kind'],
    [{ ...good, faults: [{ at: -5, kind: 'crash-client', actor: 'c' }] }, 'faults.0.at'],
    [{ ...good, expect: { hold: ['fast'] } }, 'expect.hold.0'],
    [{ ...good, surprise: true }, '(top level)'],
    [{ ...good, faults: [{ at: 0, kind: 'crash-client', actor: 'consumer-9' }] }, 'faults.0 (crash-client): no actor "consumer-9"'],
    [{ ...good, faults: [{ at: 0, kind: 'clock-skew', target: 'node-z', offsetMs: 5 }] }, 'faults.0 (clock-skew): no actor or node "node-z"'],
    [{ ...good, faults: [{ at: 0, kind: 'partition', from: 'a', to: 'q', durationMs: 5 }] }, 'faults.0 (partition): no zone "q"'],
    [{ ...good, faults: [{ at: 99_999, kind: 'lag-spike', extraMs: 5, durationMs: 5 }] }, 'is not inside the safety phase'],
    [{ ...good, topology: { zones: ['a', 'b', 'a'] } }, 'topology.zones: "a" named twice'],
    [{ ...good, workload: { consumers: 2 } }, 'leaves c with no consumer'],
    [{ ...good, queue: { durable: { replicas: 1, timeoutMs: 100 } } }, 'serverTime and durable are refused on Dynomite'],
    [{ ...good, topology: { kind: 'primary-replica', zones: ['a', 'b'] }, workload: { consumers: 2 }, queue: { durable: { replicas: 2, timeoutMs: 100 } } }, 'queue.durable.replicas: 2 but a primary with 2 zones has 1 replica'],
  ])('%j → %s', (input, field) => {
    try {
      parseScenario(input, 'x.json');
      expect.unreachable('should not parse');
    } catch (err) {
      expect(err).toBeInstanceOf(ScenarioError);
      expect((err as ScenarioError).issues.join('\n')).toContain(field);
    }
  });
});

describe('the scenario JSON Schema documents itself', () => {
  it('every field of every object (faults included) has a description', () => {
    const missing: string[] = [];
    const walk = (s: unknown, path: string): void => {
      if (!s || typeof s !== 'object') return;
      const node = s as { properties?: Record<string, { description?: string }>; items?: unknown; anyOf?: unknown[]; oneOf?: unknown[] };
      for (const [k, v] of Object.entries(node.properties ?? {})) {
        if (!v.description) missing.push(`${path}.${k}`);
        walk(v, `${path}.${k}`);
      }
      for (const x of [node.items, ...(node.anyOf ?? []), ...(node.oneOf ?? [])]) walk(x, `${path}[]`);
    };
    walk(scenarioJsonSchema(), '');
    expect(missing).toEqual([]);
  });
});
