import { describe, expect, expectTypeOf, it } from 'vitest';
import { OP_TYPES } from '../../src/model/history.js';
import { parseSimConfig } from '../../src/sim/run/config.js';
import { runSimulation } from '../../src/sim/run/run.js';
import { CONFIGURATIONS, configurationRun } from '../../src/sim/run/configurations.js';
import { DRIVEN_METHODS, METHOD_DRIVERS } from '../../src/sim/workloads/coverage.js';
import { CONSUMER_LOOPS, PROFILES } from '../../src/sim/settings/workload-profile.js';
import type { QueueMethod } from '../../src/sim/workloads/call-counter.js';

/** The full profile on one primary with replicas, five consumers (one per loop), no faults. */
const full = (seed: string) =>
  parseSimConfig({
    seed,
    topology: { kind: 'primary-replica', zones: ['a', 'b', 'c'] },
    queue: { mode: 'atomic', unackTimeoutMs: 1_000, reaperIntervalMs: 200 },
    workload: { profile: 'full', messages: 90, rate: 8, consumers: CONSUMER_LOOPS.length, consumerBatch: 3, processingMeanMs: 30 },
    phases: { safetyMs: 4_000, livenessMs: 30_000 },
  });

describe('the full profile drives the whole public queue API (docs/CHECKER.md §1.1)', () => {
  it('every public method of the queue is in the drivers table (npm run typecheck fails on a new method without an entry)', () => {
    // Compile-time: the table's keys are exactly the methods of DynoQueue.
    expectTypeOf<keyof typeof METHOD_DRIVERS>().toEqualTypeOf<QueueMethod>();
    const excluded = Object.entries(METHOD_DRIVERS).filter(([, d]) => 'excluded' in d);
    expect(excluded.map(([m]) => m)).toEqual(['clear']);
  });

  it('one seeded run calls every method that has a driver, and records every operation type', async () => {
    const calls = new Map<string, number>();
    const types = new Set<string>();
    for (const seed of ['cover-1', 'cover-2']) {
      const r = await runSimulation(full(seed));
      for (const [m, n] of Object.entries(r.calls)) calls.set(m, (calls.get(m) ?? 0) + n);
      for (const op of r.history) types.add(op.type);
      expect(r.report.properties.noPhantoms).toBe(true);
    }
    expect(DRIVEN_METHODS.filter((m) => !calls.has(m)), 'methods never called').toEqual([]);
    // A kept-back lease needs a pop whose reply came a whole lease late: a client paused past its lease.
    const paused = await runSimulation(configurationRun(CONFIGURATIONS.find((c) => c.name === 'primary-replica/atomic/client-pause/full')!, 'g5'));
    for (const op of paused.history) types.add(op.type);
    expect(OP_TYPES.filter((t) => !types.has(t)), 'operation types never recorded').toEqual([]);
  }, 120_000);

  it('the basic profile calls only push, pop and ack (what the table measured first)', async () => {
    const r = await runSimulation(parseSimConfig({ seed: 'basic', workload: { messages: 20, profile: 'basic' } }));
    expect(Object.keys(r.calls).sort()).toEqual(['ack', 'pop', 'push']);
    expect(PROFILES.basic.operator).toBeNull();
  });
});
