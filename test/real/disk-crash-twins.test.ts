import { describe, expect, it } from 'vitest';
import { realTwinProblems } from '../../src/real/twin/faults/index.js';
import { runReal, type RealResult } from '../../src/real/twin/run-real.js';
import { parseSimConfig, type SimConfig, type SimConfigInput } from '../../src/sim/run/config.js';
import { runSimulation } from '../../src/sim/run/run.js';
import { redisRequired, redisServerBinary } from '../support/redis-server.js';

/**
 * Crashes that keep the disk, simulated and on real processes with the same schedule: the primary
 * of a durable set-up (atomic, server time, WAIT 1) SIGKILLed and started again by its supervisor
 * 300 ms later, before Sentinel's 1 s failover delay. Without persistence it comes back empty and its
 * replicas resync from it (every acknowledged push is gone); with its AOF (appendfsync always) nothing
 * is lost; without persistence but under the supervisor rule (keepEmptyPrimaryDown) it waits for
 * Sentinel to promote a replica and rejoins as its replica, and nothing is lost either.
 */
const redisAvailable = redisServerBinary() !== null;
if (!redisAvailable && redisRequired) throw new Error('REQUIRE_REDIS=1 but redis-server is not installed');

function config(topology: Record<string, unknown>): SimConfigInput {
  return {
    seed: 'disk-twin',
    topology: { kind: 'primary-replica', zones: ['a', 'b', 'c'], failoverDelayMs: 1_000, ...topology },
    queue: { mode: 'atomic', unackTimeoutMs: 1_000, reaperIntervalMs: 200, serverTime: true, durable: { replicas: 1, timeoutMs: 500 } },
    workload: { messages: 40, producers: 2, rate: 10, consumers: 3, consumerBatch: 3, processingMeanMs: 30 },
    faults: [{ at: 1_500, kind: 'kill-process', zone: 'a', durationMs: 300 }],
    phases: { safetyMs: 4_000, livenessMs: 20_000 },
  };
}

/** The configuration run simulated and on real processes; at-least-once as `holds` says on both; the real run's log. */
async function bothHold(c: SimConfig, holds: boolean): Promise<{ real: RealResult; log: string }> {
  const simulated = await runSimulation(c, { traceHash: false });
  const real = await runReal(c);
  expect(real.faults.filter((f) => f.error), 'the fault struck the real processes').toEqual([]);
  expect(real.report.pushed).toBeGreaterThan(0);
  const log = real.log.join('\n');
  expect(simulated.report.properties.atLeastOnce, 'simulated').toBe(holds);
  expect(real.report.properties.atLeastOnce, `real:\n${log}`).toBe(holds);
  return { real, log };
}

describe.runIf(redisAvailable)('a primary killed and restarted before failover: simulated and real agree on what its disk keeps', () => {
  it.each([
    ['no persistence', false, {}],
    ['an AOF, appendfsync always', true, { persistence: 'aof-always' }],
    ['an AOF, appendfsync everysec', true, { persistence: 'aof-everysec' }],
    ['no persistence, the supervisor rule', true, { keepEmptyPrimaryDown: true }],
  ] as const)('%s: at-least-once held %s', async (_what, holds, topology) => {
    const { log } = await bothHold(parseSimConfig(config(topology)), holds);
    if ('keepEmptyPrimaryDown' in topology) {
      // Started as a replica of the replica Sentinel promoted (the log's own watch of Sentinel polls
      // apart from the supervisor's: it may note the naming after the start, or not at all).
      expect(log).toMatch(/supervisor keeps a down .* until a replica is promoted[\s\S]*supervisor starts a empty as a replica of [bc]/);
    }
  }, 90_000);
});

/**
 * A primary killed past the failover delay 300 ms before the safety phase ends, its supervisor due
 * 2.9 s later (after Sentinel's promotion, about 2.2 s after the kill): the liveness start does not
 * start it early, on either side. Started at once it would be back within the failover delay, still
 * the primary, empty, and its replicas would resync from it (every acknowledged push gone).
 */
describe.runIf(redisAvailable)('a primary killed past the failover delay just before the liveness phase', () => {
  it('stays down until Sentinel promotes a replica and rejoins as its replica: at-least-once holds simulated and real', async () => {
    const c = parseSimConfig({ ...config({}), faults: [{ at: 3_700, kind: 'kill-process-past-failover', zone: 'a', durationMs: 2_900 }] });
    const { real, log } = await bothHold(c, true);
    // Started as a replica of the primary Sentinel named meanwhile, not at the liveness start.
    expect(log).toMatch(/liveness: every fault healed[\s\S]*supervisor starts a empty as a replica of [bc]/);
    // Down past the failover delay, as drawn: the schedule as it happened says so too.
    const down = real.happened.find((f) => f.kind === 'kill-process-past-failover');
    expect(down && 'durationMs' in down ? down.durationMs : 0).toBeGreaterThan(c.topology.failoverDelayMs);
  }, 90_000);
});

/**
 * The same for a node crash (no supervisor: the liveness heal restarts it): a primary crashed empty
 * 300 ms before the safety phase ends is restarted once Sentinel has promoted a replica, on both sides.
 * Before, the real twin restarted it at once: back 371 ms after the kill, within the failover delay,
 * still the primary, empty (where the simulator waited for the promotion).
 */
describe.runIf(redisAvailable)('a primary node crashed just before the liveness phase', () => {
  it('is restarted after Sentinel promotes a replica: at-least-once holds simulated and real', async () => {
    const c = parseSimConfig({ ...config({}), faults: [{ at: 3_700, kind: 'crash-node', zone: 'a', loseUnreplicated: true }] });
    const { real } = await bothHold(c, true);
    const crashed = real.happened.find((f) => f.kind === 'crash-node');
    const restarted = real.happened.find((f) => f.kind === 'restart-node');
    expect(crashed && restarted && restarted.at - crashed.at).toBeGreaterThan(c.topology.failoverDelayMs);
  }, 90_000);
});

describe('a power loss has no real means', () => {
  it('a real twin refuses it, naming it, before any process starts', () => {
    const c = parseSimConfig({ ...config({ persistence: 'aof-everysec' }), faults: [{ at: 1_500, kind: 'power-loss', zone: 'a', durationMs: 300 }] });
    expect(realTwinProblems(c)).toEqual([expect.stringMatching(/^fault power-loss at 1500 ms: no real means/)]);
  });
});
