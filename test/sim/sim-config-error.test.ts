import { describe, expect, it } from 'vitest';
import { parseSimConfig, SimConfigError } from '../../src/public/sim.js';
import { simulate } from '../../src/public/testing.js';

describe('a bad simulation configuration is a SimConfigError naming the field, not a raw ZodError', () => {
  it('parseSimConfig', () => {
    expect(() => parseSimConfig({ workload: { messages: -1 } })).toThrow(SimConfigError);
    expect(() => parseSimConfig({ workload: { messages: -1 } })).toThrow(/^invalid simulation configuration\n {2}- workload\.messages: /);
  });

  it('serverTime or durable in legacy mode is refused before anything runs (the queue would refuse it mid-run)', () => {
    const legacy = { topology: { kind: 'primary-replica' as const }, queue: { mode: 'legacy' as const, serverTime: true } };
    expect(() => parseSimConfig(legacy)).toThrow(SimConfigError);
    expect(() => parseSimConfig(legacy)).toThrow(/queue: serverTime and durable are atomic-mode options/);
  });

  it('simulate', async () => {
    const err = await simulate({ config: { topology: { kind: 'dynomite' }, workload: { messages: -1 } }, seeds: 1 }).then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(SimConfigError);
    expect((err as SimConfigError).problems).toEqual([expect.stringMatching(/^workload\.messages: /)]);
  });
});
