import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseSimConfig, type SimConfigInput } from '../../src/sim/run/config.js';
import { generateFaults } from '../../src/sim/faults/index.js';
import { Rng } from '../../src/sim/kernel/rng.js';
import { runSimulation } from '../../src/sim/run/run.js';

const RUNS = Number(process.env.DYNOQ_PROPERTY_SCALE ?? 1) * 6;

/** A small random configuration: topology, consistency, mode, lag and a generated fault schedule. */
const configArb = fc
  .record({
    seed: fc.string({ minLength: 1, maxLength: 8 }),
    kind: fc.constantFrom('dynomite' as const, 'primary-replica' as const),
    mode: fc.constantFrom('atomic' as const, 'legacy' as const),
    quorum: fc.constantFrom('DC_ONE' as const, 'DC_QUORUM' as const, 'DC_SAFE_QUORUM' as const),
    lag: fc.integer({ min: 0, max: 50 }),
    faults: fc.integer({ min: 0, max: 4 }),
    serverTime: fc.boolean(),
  })
  .map((c): SimConfigInput => {
    const base: SimConfigInput = {
    seed: c.seed,
    topology: { kind: c.kind, zones: ['a', 'b', 'c'], quorumConsistency: c.quorum },
    queue: { mode: c.mode, unackTimeoutMs: 800, reaperIntervalMs: 200, serverTime: c.mode === 'atomic' && c.serverTime && c.kind === 'primary-replica' },
    network: { lagMeanMs: c.lag },
    workload: { messages: 30, rate: 50, consumers: 3, processingMeanMs: 20, crashBeforeAckProbability: 0.05 },
    phases: { safetyMs: 2_000, livenessMs: 10_000 },
    };
    return { ...base, faults: generateFaults(new Rng(c.seed, 'faults'), { count: c.faults, safetyMs: 2_000, config: parseSimConfig(base) }) };
  });

describe('determinism', () => {
  it('the same seed and configuration give the same trace hash twice', async () => {
    await fc.assert(
      fc.asyncProperty(configArb, async (input) => {
        const a = await runSimulation(parseSimConfig(input));
        const b = await runSimulation(parseSimConfig(input));
        expect(b.traceHash).toBe(a.traceHash);
        expect(b.report).toEqual(a.report);
      }),
      { numRuns: RUNS },
    );
  });

  it('different seeds give different traces', async () => {
    await fc.assert(
      fc.asyncProperty(configArb, fc.string({ minLength: 1, maxLength: 8 }), async (input, other) => {
        fc.pre(other !== input.seed);
        const a = await runSimulation(parseSimConfig(input));
        const b = await runSimulation(parseSimConfig({ ...input, seed: other }));
        expect(b.traceHash).not.toBe(a.traceHash);
      }),
      { numRuns: RUNS },
    );
  });

  it('named random streams do not shift when another stream is drawn from', () => {
    const a = new Rng('s');
    const b = new Rng('s');
    b.stream('new-component').float();
    expect(a.stream('network').float()).toBe(b.stream('network').float());
  });

  it('keeps the trace when asked and hashes exactly its lines', async () => {
    const r = await runSimulation(parseSimConfig({ seed: 't', workload: { messages: 5 }, keepTrace: true, phases: { safetyMs: 500 } }));
    const { createHash } = await import('node:crypto');
    expect(createHash('sha256').update(r.traceText!).digest('hex')).toBe(r.traceHash);
    expect(r.traceText!.split('\n')[0]).toContain('"op":"start"');
  });
});
