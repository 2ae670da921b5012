import { describe, expect, it } from 'vitest';
import { parseSimConfig, type SimConfigInput } from '../../src/sim/run/config.js';
import { runSimulation } from '../../src/sim/run/run.js';
import { setupProblems } from '../../src/sim/run/config-problems.js';
import { SimNode } from '../../src/sim/store/sim-node.js';
import { Kernel } from '../../src/sim/kernel/kernel.js';
import { Keyspace } from '../../src/redis/keyspace.js';

/** The disk-keeping crash families on a primary with two replicas: what each set-up keeps. */
function config(topology: Record<string, unknown>, faults: SimConfigInput['faults'], durable = true): SimConfigInput {
  return {
    seed: 'disk',
    topology: { kind: 'primary-replica', zones: ['a', 'b', 'c'], failoverDelayMs: 1_000, ...topology },
    queue: { mode: 'atomic', unackTimeoutMs: 1_000, reaperIntervalMs: 200, serverTime: true, ...(durable ? { durable: { replicas: 1, timeoutMs: 500 } } : {}) },
    workload: { messages: 60, producers: 2, rate: 20, consumers: 3, consumerBatch: 3, processingMeanMs: 30 },
    faults,
    phases: { safetyMs: 4_000, livenessMs: 30_000 },
  };
}
const run = (c: SimConfigInput) => runSimulation(parseSimConfig(c));
const counts = (r: Awaited<ReturnType<typeof run>>) => r.faults[0]!.exposure.counts;
const killPrimary = [{ at: 1_200, kind: 'kill-process', zone: 'a', durationMs: 300 }] as SimConfigInput['faults'];

describe('process-crash: killed, restarted from its disk before failover', () => {
  it('without persistence the primary comes back empty and its replicas resync from it: acknowledged pushes are lost', async () => {
    const r = await run(config({}, killPrimary));
    expect(counts(r)).toMatchObject({ 'primary crashed': 1, 'restarted empty': 1 });
    expect(counts(r).promotions).toBeUndefined();
    expect(r.report.properties.atLeastOnce).toBe(false);
  });

  it.each(['aof-always', 'aof-everysec'] as const)('with %s it comes back with every write it acknowledged: nothing is lost', async (persistence) => {
    const r = await run(config({ persistence }, killPrimary));
    expect(counts(r)).toMatchObject({ 'primary crashed': 1, 'restarted from disk': 1 });
    expect(r.report.properties.atLeastOnce).toBe(true);
    expect(r.report.properties.unackRecovery).toBe(true);
  });

  it('the supervisor rule keeps the empty primary down until Sentinel promotes a replica, then it rejoins as a replica: nothing durable is lost', async () => {
    const r = await run(config({ keepEmptyPrimaryDown: true }, killPrimary));
    expect(counts(r)).toMatchObject({ 'primary crashed': 1, 'empty primary kept down': 1, promotions: 1, 'restarted empty': 1 });
    expect(r.report.properties.atLeastOnce).toBe(true);
  });

  it('the rule is refused on Dynomite, naming the field', () => {
    const problems = setupProblems(parseSimConfig({ topology: { kind: 'dynomite', keepEmptyPrimaryDown: true } }));
    expect(problems).toEqual([expect.stringContaining('topology.keepEmptyPrimaryDown')]);
  });
});

describe('process-crash-failover: killed, back after a replica was promoted', () => {
  const late = [{ at: 1_200, kind: 'kill-process-past-failover', zone: 'a', durationMs: 2_500 }] as SimConfigInput['faults'];
  it('the old primary rejoins as a replica; with durable writes and its AOF nothing acknowledged is lost', async () => {
    const r = await run(config({ persistence: 'aof-always' }, late));
    expect(counts(r)).toMatchObject({ 'primary crashed': 1, promotions: 1, 'restarted from disk': 1 });
    expect(r.report.properties.atLeastOnce).toBe(true);
  });
});

describe('the disk of a node (topology.persistence)', () => {
  async function diskAfterWrites(persistence: 'none' | 'aof-always' | 'aof-everysec', loss: 'process-killed' | 'power-lost') {
    const kernel = new Kernel();
    const node = new SimNode('primary-a', 'a', kernel);
    node.persistence = persistence;
    const start = kernel.now;
    const write = (at: number, member: string) => kernel.at(start + at, () => void node.apply({ kind: 'cmd', cmd: 'zadd', args: ['z', '1', member] }));
    write(100, 'early');
    write(1_500, 'late');
    await kernel.runUntil(start + 1_700);
    const disk = node.disk(loss);
    return disk instanceof Keyspace ? (disk.exec('zrange', ['z', '0', '-1']) as string[]).sort() : disk;
  }

  it('a killed process keeps every write of an AOF, everysec included (written to the file before the reply); none keeps nothing', async () => {
    expect(await diskAfterWrites('aof-always', 'process-killed')).toBe('all');
    expect(await diskAfterWrites('aof-everysec', 'process-killed')).toBe('all');
    expect(await diskAfterWrites('none', 'process-killed')).toBe('nothing');
  });

  it('a power loss keeps what was fsynced: everysec loses the writes since the last whole second, always none', async () => {
    expect(await diskAfterWrites('aof-always', 'power-lost')).toBe('all');
    expect(await diskAfterWrites('aof-everysec', 'power-lost')).toEqual(['early']);
  });
});

describe('a replica restarted while its primary is down', () => {
  it('cannot sync from it: emptied by its crash, it is not the replica a failover promotes', async () => {
    // The primary dies for good (past failover); meanwhile replica b is killed and restarts empty.
    const faults = [
      { at: 1_200, kind: 'kill-process-past-failover', zone: 'a', durationMs: 2_500 },
      { at: 1_400, kind: 'kill-process', zone: 'b', durationMs: 200 },
    ] as SimConfigInput['faults'];
    const r = await run(config({}, faults));
    expect(r.faults[0]!.exposure.counts).toMatchObject({ 'primary crashed': 1, promotions: 1 });
    expect(r.faults[1]!.exposure.counts).toMatchObject({ 'restarted empty': 1 });
    expect(r.report.properties.atLeastOnce).toBe(true);
  });
});
