import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseSimConfig } from '../../src/sim/run/config.js';
import { configurationRun } from '../../src/sim/run/configurations.js';
import { configurationNamed } from '../../src/sim/campaign/guarantees.js';
import { runSimulation, SimConfigError } from '../../src/sim/run/run.js';
import { traceLine, type TraceEvent } from '../../src/sim/kernel/trace.js';

/** Values as trace events carry them: JSON values, arrays of them, some frozen, some holes of undefined. */
const valueArb: fc.Arbitrary<unknown> = fc.letrec<{ v: unknown }>((tie) => ({
  v: fc.oneof(
    { depthSize: 'small' },
    fc.jsonValue({ maxDepth: 2 }),
    // Strings JSON must escape: quotes, backslashes, control characters, lone surrogates, non-ASCII.
    fc.string({ unit: 'binary' }),
    fc.string({ unit: fc.constantFrom('"', '\\', '\n', '\u0000', '\u001f', '\u007f', '\u2028', '\ud800', 'é', 'a', ' ', '~') }),
    fc.constant(undefined),
    fc.array(tie('v'), { maxLength: 4 }),
    fc.array(tie('v'), { maxLength: 4 }).map((a) => Object.freeze(a)),
  ),
})).v;

const eventArb = fc.record(
  {
    t: fc.oneof(fc.double(), fc.integer({ min: 1.7e12, max: 1.8e12 }).map((n) => n + 0.4626)),
    actor: fc.string(),
    op: fc.string(),
    args: valueArb,
    result: valueArb,
  },
  { requiredKeys: ['t', 'actor', 'op'] },
);

describe('traceLine', () => {
  it('is JSON.stringify of the event, byte for byte (the recorded trace hashes depend on it)', () => {
    fc.assert(
      fc.property(eventArb, (event) => {
        expect(traceLine(event as TraceEvent)).toBe(JSON.stringify(event));
      }),
      { numRuns: 2_000 },
    );
  });

  it('serializes a frozen list once and reuses it, still exactly', () => {
    const keys = Object.freeze(['dynoq.MESSAGE.q', 'dynoq.QUEUE.q.a']);
    const a = { t: 1, actor: 'c', op: 'atomicPop', args: [keys, ['1', 'x"y']], result: [] };
    const b = { t: 2, actor: 'c', op: 'atomicPop', args: [keys, ['2', '\n']], result: null };
    expect(traceLine(a)).toBe(JSON.stringify(a));
    expect(traceLine(b)).toBe(JSON.stringify(b));
  });

  it('leaves out fields JSON leaves out', () => {
    const e = { t: Number.NaN, actor: 'sim', op: 'x', args: () => 1 } as unknown as TraceEvent;
    expect(traceLine(e)).toBe('{"t":null,"actor":"sim","op":"x"}');
  });
});

describe('a run whose trace is only counted (traceHash: false)', () => {
  // Rows with faults of several families, where a trace that changed anything would show.
  const rows = ['dynomite/DC_QUORUM/atomic/swarm', 'dynomite/DC_QUORUM/legacy/node-crash', 'primary-replica/atomic/partition'];

  it.each(rows)('is the same run as the hashed one, event for event: %s', async (name) => {
    const config = parseSimConfig(configurationRun(configurationNamed(name)!, 'trace-modes'));
    const hashed = await runSimulation(config);
    const counted = await runSimulation(config, { traceHash: false });
    expect(counted.traceHash).toBeNull();
    expect(counted.traceText).toBeNull();
    expect(hashed.traceHash).toMatch(/^[0-9a-f]{64}$/);
    expect(counted.kernelEvents).toBe(hashed.kernelEvents);
    expect(counted.traceEvents).toBe(hashed.traceEvents);
    expect(counted.history).toEqual(hashed.history);
    expect(counted.report).toEqual(hashed.report);
    expect(counted.faults).toEqual(hashed.faults);
    expect(counted.replicas).toEqual(hashed.replicas);
  });

  it('is asked for with a boolean in an options object: anything else is refused, not taken as the default', async () => {
    const config = parseSimConfig({ seed: 'option' });
    await expect(runSimulation(config, { traceHash: 'no' as unknown as boolean })).rejects.toThrow(/traceHash must be true or false, not "no"/);
    for (const bad of [5, 'x', [], null]) {
      await expect(runSimulation(config, bad as never)).rejects.toThrow(/run options must be an object/);
    }
  });

  it('is refused with keepTrace: there would be no lines to keep', async () => {
    const config = parseSimConfig({ seed: 'keep', keepTrace: true });
    await expect(runSimulation(config, { traceHash: false })).rejects.toThrow(SimConfigError);
  });
});
