import { describe, expect, it } from 'vitest';
import { parseSimConfig, type SimConfigInput } from '../../src/sim/run/config.js';
import { runSimulation } from '../../src/sim/run/run.js';
import { SimTimeoutError } from '../../src/sim/store/sim-store.js';
import { PrimaryReplicaTopology, SENTINEL_PROMOTION_MS } from '../../src/sim/topology/primary-replica.js';
import { world } from './fixtures.js';

describe('each fault has the effect it models', () => {
  it('replica lag: a DC_ONE read in another zone sees the old value until the lag passes', async () => {
    const w = world('dynomite', ['a', 'b', 'c'], 100);
    const writer = w.client('writer', 'a', { consistency: 'DC_ONE' });
    const reader = w.client('reader', 'b', { consistency: 'DC_ONE' });
    await w.settle(writer.hset('h', 'f', 'new'));
    expect(await w.settle(reader.hget('h', 'f'))).toBeNull();
    await w.advance(150);
    expect(await w.settle(reader.hget('h', 'f'))).toBe('new');
  });

  it('DC_QUORUM answers only after a majority applied; DC_SAFE_QUORUM refuses replicas that all disagree', async () => {
    const w = world('dynomite', ['a', 'b', 'c'], 100);
    const quorum = w.client('q', 'a', { consistency: 'DC_QUORUM' });
    const start = w.kernel.now;
    await w.settle(quorum.hset('h', 'f', 'v'));
    expect(w.kernel.now - start).toBeGreaterThanOrEqual(100);
    // Diverge b and c from a and from each other: no two replies agree (voting: test/sim/dynomite-facts).
    w.topology.nodes[1]!.keyspace.exec('hset', ['h', 'f', 'other']);
    w.topology.nodes[2]!.keyspace.exec('hset', ['h', 'f', 'third']);
    const safe = w.client('s', 'a', { consistency: 'DC_SAFE_QUORUM' });
    await expect(w.settle(safe.hget('h', 'f'))).rejects.toThrow(/Failed to achieve Quorum/);
  });

  it('primary crash before replication loses the acknowledged write after failover', async () => {
    const w = world('primary-replica', ['a', 'b'], 500);
    const client = w.client('c', 'a');
    expect(await w.settle(client.hset('h', 'f', 'v'))).toBe(1);
    const pr = w.topology as PrimaryReplicaTopology;
    pr.crash(pr.primary, true);
    // Down-after (1 s), then Sentinel's vote and promotion.
    await w.advance(1_100 + SENTINEL_PROMOTION_MS);
    expect(pr.primary.name).toBe('replica-b');
    expect(await w.settle(client.hget('h', 'f'))).toBeNull();
  });

  it('the same crash after replication caught up loses nothing, and WAIT counts replicas', async () => {
    const w = world('primary-replica', ['a', 'b'], 50);
    const client = w.client('c', 'a');
    await w.settle(client.hset('h', 'f', 'v'));
    expect(await w.settle(client.wait(1, 1_000))).toBe(1);
    const pr = w.topology as PrimaryReplicaTopology;
    pr.crash(pr.primary, true);
    await w.advance(1_100 + SENTINEL_PROMOTION_MS);
    expect(await w.settle(client.hget('h', 'f'))).toBe('v');
  });

  it('a replica restarted while writes were on their way to it takes none of them before its full resynchronisation', async () => {
    const w = world('primary-replica', ['a', 'b'], 200);
    const client = w.client('c', 'a');
    const pr = w.topology as PrimaryReplicaTopology;
    const replica = pr.nodes[1]!;
    await w.settle(client.hset('h', 'f', 'v'));
    // The write is on its way (200 ms of lag) when the replica dies and comes back, needing a full resync.
    pr.crash(replica, false);
    await w.advance(20);
    pr.restart(replica);
    await w.advance(400);
    expect(replica.keyspace.exec('hget', ['h', 'f'])).toBeNull();
    expect(await w.settle(client.wait(1, 100))).toBe(0);
  });

  it('a one-way partition times requests out (whichever direction is cut)', async () => {
    const w = world('dynomite', ['a', 'b'], 10);
    const client = w.client('c', 'a', { timeoutMs: 300 });
    client.connection.nodeZone = 'b';
    w.network.block('a', 'b');
    await expect(w.settle(client.hset('h', 'f', 'v'))).rejects.toBeInstanceOf(SimTimeoutError);
    expect(w.topology.nodes[1]!.keyspace.exec('hget', ['h', 'f'])).toBeNull();
    w.network.healAll();
    w.network.block('b', 'a');
    // The request arrives and is applied; only the reply is lost.
    await expect(w.settle(client.hset('h', 'f', 'v'))).rejects.toBeInstanceOf(SimTimeoutError);
    expect(w.topology.nodes[1]!.keyspace.exec('hget', ['h', 'f'])).toBe('v');
  });

  it('a crashed node refuses connections and, restarted without its data, comes back empty', async () => {
    const w = world('dynomite', ['a', 'b'], 10);
    const client = w.client('c', 'a');
    await w.settle(client.hset('h', 'f', 'v'));
    await w.advance(50);
    w.topology.crash(w.topology.nodes[0]!, true);
    await expect(w.settle(client.hget('h', 'f'))).rejects.toThrow(/ECONNREFUSED/);
    w.topology.restart(w.topology.nodes[0]!);
    expect(await w.settle(client.hget('h', 'f'))).toBeNull();
    expect(w.topology.nodes[1]!.keyspace.exec('hget', ['h', 'f'])).toBe('v');
  });
});

/** One zone, two consumers, a long processing time: a reaper acting early shows up as double pops. */
const skewBase = (mode: 'atomic' | 'legacy', extra: Partial<SimConfigInput> = {}): SimConfigInput => ({
  seed: 'skew',
  topology: { kind: 'dynomite', zones: ['a'] },
  queue: { mode, unackTimeoutMs: 2_000, reaperIntervalMs: 100 },
  workload: { messages: 40, producers: 1, rate: 20, consumers: 2, consumerBatch: 1, processingMeanMs: 1_200 },
  phases: { safetyMs: 5_000, livenessMs: 60_000 },
  ...extra,
});

describe('faults through whole runs (checker on true time)', () => {
  it('a reaper whose clock runs ahead re-queues leases early: double pops on the true clock', async () => {
    const skewed = await runSimulation(
      parseSimConfig(skewBase('atomic', { faults: [{ at: 0, kind: 'clock-skew', target: 'consumer-1', offsetMs: 1_800 }] })),
    );
    const honest = await runSimulation(parseSimConfig(skewBase('atomic')));
    expect(skewed.report.counts['double-pop']).toBeGreaterThan(0);
    expect(honest.report.counts['double-pop']).toBe(0);
    expect(skewed.report.violations.find((v) => v.kind === 'double-pop')!.processes).toContain('consumer-1');
  });

  it('server time makes the atomic queue immune to that skew', async () => {
    const r = await runSimulation(
      parseSimConfig(
        skewBase('atomic', {
          // on a Redis primary: the queue refuses server time on Dynomite (each replica's own clock)
          topology: { kind: 'primary-replica', zones: ['a'] },
          queue: { mode: 'atomic', unackTimeoutMs: 2_000, reaperIntervalMs: 100, serverTime: true },
          faults: [{ at: 0, kind: 'clock-skew', target: 'consumer-1', offsetMs: 1_800 }],
        }),
      ),
    );
    expect(r.report.counts['double-pop']).toBe(0);
  });

  it('a consumer that crashes holding leases: its messages come back after the lease', async () => {
    const r = await runSimulation(
      parseSimConfig({
        seed: 'crash',
        topology: { zones: ['a'] },
        queue: { unackTimeoutMs: 1_000, reaperIntervalMs: 200 },
        workload: { messages: 30, producers: 1, rate: 50, consumers: 2, consumerBatch: 5, processingMeanMs: 50 },
        faults: [{ at: 300, kind: 'crash-client', actor: 'consumer-0' }],
        phases: { safetyMs: 3_000, livenessMs: 30_000 },
      }),
    );
    expect(r.report.properties.atLeastOnce).toBe(true);
    expect(r.report.counts['slow-recovery']).toBe(0);
    expect(r.report.acked).toBe(30);
  });

  it('a pause longer than the lease: the message is delivered again (a duplicate) and the late ack is refused', async () => {
    const r = await runSimulation(
      parseSimConfig({
        seed: 'pause',
        topology: { zones: ['a'] },
        queue: { unackTimeoutMs: 500, reaperIntervalMs: 100 },
        workload: { messages: 10, producers: 1, rate: 100, consumers: 2, consumerBatch: 5, processingMeanMs: 100 },
        faults: [{ at: 150, kind: 'pause-client', actor: 'consumer-0', durationMs: 2_000 }],
        phases: { safetyMs: 4_000, livenessMs: 30_000 },
      }),
    );
    expect(r.report.counts.duplicate).toBeGreaterThan(0);
    expect(r.history.some((e) => e.type === 'ack' && e.process === 'consumer-0' && e.outcome === 'fail')).toBe(true);
    expect(r.report.counts['double-pop']).toBe(0);
  });

  it('a clock jump backwards on the only live reaper delays re-delivery of a crashed consumer lease', async () => {
    const base = (faults: SimConfigInput['faults']) =>
      parseSimConfig({
        seed: 'jump',
        topology: { zones: ['a'] },
        queue: { unackTimeoutMs: 500, reaperIntervalMs: 100 },
        workload: { messages: 10, producers: 1, rate: 100, consumers: 2, consumerBatch: 10, processingMeanMs: 300 },
        faults: [{ at: 300, kind: 'crash-client', actor: 'consumer-0' }, ...(faults ?? [])],
        phases: { safetyMs: 20_000, livenessMs: 20_000 },
      });
    const recoveryGap = (r: Awaited<ReturnType<typeof runSimulation>>) => {
      const first = r.history.find((e) => e.type === 'deliver' && e.process === 'consumer-0');
      const again = r.history.find((e) => e.type === 'deliver' && e.process !== 'consumer-0' && e.id === first?.id);
      return again!.completedAt - first!.completedAt;
    };
    const steady = await runSimulation(base([]));
    const jumped = await runSimulation(base([{ at: 0, kind: 'clock-jump', target: 'consumer-1', deltaMs: -8_000 }]));
    expect(recoveryGap(steady)).toBeLessThan(1_000);
    expect(recoveryGap(jumped)).toBeGreaterThan(8_000);
    expect(jumped.report.properties.atLeastOnce).toBe(true);
  });

  it('a lag spike slows every quorum write; nothing acknowledged is lost', async () => {
    const spiky = await runSimulation(
      parseSimConfig({
        seed: 'lag',
        queue: { mode: 'legacy' },
        workload: { messages: 60, producers: 3, rate: 60 },
        faults: [{ at: 0, kind: 'lag-spike', extraMs: 400, durationMs: 5_000 }],
        phases: { safetyMs: 5_000, livenessMs: 30_000 },
      }),
    );
    const calm = await runSimulation(parseSimConfig({ ...spiky.config, faults: [] }));
    expect(spiky.report.properties.atLeastOnce).toBe(true);
    expect(spiky.report.acked).toBe(spiky.report.pushed);
    // Producers are slowed down so much that fewer pushes fit in the safety phase.
    expect(spiky.report.pushed).toBeLessThan(calm.report.pushed);
  });
});
