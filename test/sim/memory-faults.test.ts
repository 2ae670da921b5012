import { describe, expect, it } from 'vitest';
import { parseSimConfig, type SimConfigInput } from '../../src/sim/run/config.js';
import { runSimulation } from '../../src/sim/run/run.js';

/** The two memory fault families on the simulated primary: what each does to a queue. */
function config(mode: 'legacy' | 'atomic', fault: Record<string, unknown>): SimConfigInput {
  return {
    seed: 'memory',
    topology: { kind: 'primary-replica', zones: ['a', 'b'] },
    queue: { mode, unackTimeoutMs: 1_000, reaperIntervalMs: 200 },
    workload: { messages: 80, producers: 2, rate: 40, consumers: 2 },
    faults: [{ at: 500, zone: 'a', durationMs: 1_500, fraction: 0.3, ...fault }] as SimConfigInput['faults'],
    phases: { safetyMs: 3_000, livenessMs: 20_000 },
  };
}

const count = (r: Awaited<ReturnType<typeof runSimulation>>, what: string) => r.faults.reduce((n, f) => n + (f.exposure.counts[what] ?? 0), 0);

describe('memory-pressure (noeviction)', () => {
  it.each(['limit', 'tenant'] as const)('atomic, means %s: pushes are refused whole while the primary is full, and every acknowledged push is delivered', async (means) => {
    const r = await runSimulation(parseSimConfig(config('atomic', { kind: 'memory-pressure', means })));
    expect(count(r, 'push refused')).toBeGreaterThan(0);
    expect(r.report.properties.atLeastOnce).toBe(true);
    expect(r.report.properties.unackRecovery).toBe(true);
    // refused pushes never count as pushed: fewer than the workload's, all of them acked
    expect(r.report.pushed).toBeLessThan(80);
    expect(r.report.acked).toBe(r.report.pushed);
  });

  it('the same run with the fault replayed is the same run (the limit is drawn from the schedule, not the clock)', async () => {
    const a = await runSimulation(parseSimConfig(config('atomic', { kind: 'memory-pressure', means: 'limit' })));
    const b = await runSimulation(parseSimConfig(config('atomic', { kind: 'memory-pressure', means: 'limit' })));
    expect(a.traceHash).toBe(b.traceHash);
  });
});

describe('eviction (allkeys-*)', () => {
  it.each(['allkeys-lru', 'allkeys-lfu', 'allkeys-random'] as const)('%s on the primary evicts whole queue keys: acknowledged pushes are lost', async (policy) => {
    const r = await runSimulation(parseSimConfig(config('atomic', { kind: 'eviction', policy, seed: 1 })));
    expect(count(r, 'evicted')).toBeGreaterThan(0);
    expect(r.report.properties.atLeastOnce).toBe(false);
  });
});
