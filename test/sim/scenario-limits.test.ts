import { describe, expect, it } from 'vitest';
import { parseScenario, ScenarioError } from '../../src/sim/run/scenario.js';

const base = { name: 'limits', description: 'a size past its limit', seed: 's', expect: {} };

/** The error parseScenario gives, or undefined when it accepts. */
function refusal(input: object): string | undefined {
  try {
    parseScenario({ ...base, ...input });
    return undefined;
  } catch (err) {
    if (!(err instanceof ScenarioError)) throw err;
    return err.message;
  }
}

describe('a scenario asking for more than a simulation can hold is refused, naming the field', () => {
  it.each([
    [{ workload: { producers: 1e9 } }, 'workload.producers'],
    [{ workload: { consumers: 1e6 } }, 'workload.consumers'],
    [{ workload: { messages: 1e9 } }, 'workload.messages'],
    [{ workload: { rate: 1e12 } }, 'workload.rate'],
    [{ workload: { processingMeanMs: 1e15 } }, 'workload.processingMeanMs'],
    [{ phases: { safetyMs: 1e12 } }, 'phases.safetyMs'],
    [{ phases: { livenessMs: 1e12 } }, 'phases.livenessMs'],
    [{ network: { latencyBaseMs: 1e12 } }, 'network.latencyBaseMs'],
    [{ queue: { unackTimeoutMs: 1e12 } }, 'queue.unackTimeoutMs'],
    [{ faults: Array.from({ length: 1_001 }, (_, i) => ({ kind: 'pause-client', actor: 'consumer-0', at: i, durationMs: 1 })) }, 'faults'],
  ])('%# → %s', (input, field) => {
    const message = refusal(input);
    expect(message, JSON.stringify(input)).toBeDefined();
    expect(message).toContain(field);
  });

  it('the limits themselves are accepted', async () => {
    const { SCENARIO_LIMITS } = await import('../../src/sim/settings/atoms.js');
    expect(refusal({ workload: { producers: SCENARIO_LIMITS.actors, consumers: SCENARIO_LIMITS.actors }, phases: { safetyMs: SCENARIO_LIMITS.durationMs, livenessMs: SCENARIO_LIMITS.durationMs } })).toBeUndefined();
  });
});
