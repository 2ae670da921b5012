import { describe, expect, it } from 'vitest';
import { parseSimConfig, type SimConfigInput } from '../../src/sim/run/config.js';
import { CONFIGURATIONS, configurationRun } from '../../src/sim/run/configurations.js';
import { configProblems } from '../../src/sim/run/config-problems.js';
import { applicableFamilies, FAULT_FAMILIES, FAULT_FAMILY_NAMES, generateFaults, familyOf, type FaultWorld } from '../../src/sim/faults/index.js';
import { classifyFindings } from '../../src/sim/campaign/mechanisms.js';
import { Rng } from '../../src/sim/kernel/rng.js';
import { runSimulation } from '../../src/sim/run/run.js';
import { DynomiteTopology } from '../../src/sim/topology/dynomite.js';
import { world } from './fixtures.js';

const small = (extra: Partial<SimConfigInput>): SimConfigInput => ({
  seed: 'fp',
  topology: { kind: 'primary-replica', zones: ['a', 'b', 'c'], failoverDelayMs: 500 },
  queue: { unackTimeoutMs: 500, reaperIntervalMs: 100 },
  workload: { messages: 30, producers: 1, rate: 20, consumers: 3, consumerBatch: 3, processingMeanMs: 100 },
  phases: { safetyMs: 3_000, livenessMs: 20_000 },
  ...extra,
});

describe('fault packages: each strikes, records what it changed, and heals only itself', () => {
  it('ending one partition leaves an overlapping one in force', async () => {
    const w = world('dynomite', ['a', 'b', 'c'], 0);
    w.network.block('a', 'b');
    w.network.block('a', 'b');
    w.network.block('a', 'c');
    w.network.unblock('a', 'b');
    expect(w.network.canSend('a', 'b')).toBe(false);
    w.network.unblock('a', 'c');
    expect(w.network.canSend('a', 'c')).toBe(true);
    w.network.unblock('a', 'b');
    expect(w.network.canSend('a', 'b')).toBe(true);
  });

  it('through a run: a short partition heals while a long one on another pair still holds messages', async () => {
    const r = await runSimulation(
      parseSimConfig(
        small({
          topology: { kind: 'dynomite', zones: ['a', 'b', 'c'] },
          faults: [
            { at: 100, kind: 'partition', from: 'a', to: 'b', durationMs: 2_500 },
            { at: 200, kind: 'partition', from: 'a', to: 'c', durationMs: 300 },
          ],
        }),
      ),
    );
    const [long, short] = r.faults;
    expect(long!.exposure.counts['messages held until the heal']).toBeGreaterThan(short!.exposure.counts['messages held until the heal'] ?? 0);
    expect(r.exposed).toBe(true);
  });

  it('a primary outage longer than the failover delay promotes a replica, and says so', async () => {
    const r = await runSimulation(parseSimConfig(small({ faults: [{ at: 500, kind: 'crash-node', zone: 'a', loseUnreplicated: false }] })));
    expect(r.faults[0]!.exposure.counts).toMatchObject({ 'primary crashed': 1, promotions: 1 });
    expect(r.faults[0]!.family).toBe('node-crash');
  });

  it('the liveness phase does not restart a crashed primary before its failover could run', async () => {
    // The primary dies 100 ms before the safety phase ends, with work outstanding; failover is due 500 ms later.
    const r = await runSimulation(
      parseSimConfig(
        small({
          workload: { messages: 60, producers: 1, rate: 20, consumers: 3, consumerBatch: 3, processingMeanMs: 100 },
          faults: [{ at: 2_900, kind: 'crash-node', zone: 'a', loseUnreplicated: true }],
        }),
      ),
    );
    expect(r.faults[0]!.exposure.counts.promotions).toBe(1);
  });

  it('a consumer crash records the leases it held; one aimed at a dead consumer changed nothing', async () => {
    const r = await runSimulation(
      parseSimConfig(
        small({
          faults: [
            { at: 1_000, kind: 'crash-client', actor: 'consumer-0' },
            { at: 1_500, kind: 'crash-client', actor: 'consumer-0' },
          ],
        }),
      ),
    );
    expect(r.faults[0]!.exposure.struck).toBe(true);
    expect(r.faults[0]!.exposure.ids.length).toBe(r.faults[0]!.exposure.counts['leases held']);
    expect(r.faults[1]!.exposure.struck).toBe(false);
  });

  it('a clock fault under server time on a client changes nothing; on a node it is read', async () => {
    const serverTime = { unackTimeoutMs: 500, reaperIntervalMs: 100, serverTime: true };
    const client = await runSimulation(parseSimConfig(small({ queue: serverTime, faults: [{ at: 0, kind: 'clock-skew', target: 'consumer-1', offsetMs: 400 }] })));
    const node = await runSimulation(parseSimConfig(small({ queue: serverTime, faults: [{ at: 0, kind: 'clock-skew', target: 'primary-a', offsetMs: 400 }] })));
    expect(node.faults[0]!.exposure.counts['clock reads while off']).toBeGreaterThan(0);
    // the client still reads its clock (long-poll timing), but the generator never aims clock faults at clients here
    const drawn = generateFaults(new Rng('x'), { count: 20, safetyMs: 3_000, config: parseSimConfig(small({ queue: serverTime })), families: ['clock'] });
    expect(drawn.every((f) => 'target' in f && /^(primary|replica)-/.test(f.target))).toBe(true);
    expect(client.report.properties.noDoublePop).toBe(true);
  });

  it('every family can be drawn, a drawn schedule is valid, and families that change nothing are not drawn', () => {
    const oneZone = parseSimConfig(small({ topology: { kind: 'dynomite', zones: ['a'] } }));
    expect(applicableFamilies(oneZone)).not.toContain('partition');
    expect(applicableFamilies(oneZone)).not.toContain('lag-spike');
    for (const named of CONFIGURATIONS) {
      const run = parseSimConfig(configurationRun(named, 's1'));
      if (named.faults !== 'none' && named.faults !== 'swarm') expect(run.faults.every((f) => familyOf(f.kind) === named.faults)).toBe(true);
      expect(run.faults.every((f) => f.at < run.phases.safetyMs)).toBe(true);
    }
    const names = new Set(CONFIGURATIONS.map((c) => c.faults));
    for (const f of FAULT_FAMILY_NAMES) expect(names.has(f), f).toBe(true);
  });

  it("a Dynomite node's redis crash and a stall strike on their own, record what they did, and are refused off Dynomite", async () => {
    const r = await runSimulation(
      parseSimConfig(
        small({
          topology: { kind: 'dynomite', zones: ['a', 'b', 'c'] },
          faults: [
            { at: 500, kind: 'crash-backend', zone: 'a', loseData: true },
            { at: 800, kind: 'stall-node', zone: 'b', durationMs: 1_000 },
            { at: 900, kind: 'stall-backend', zone: 'c', durationMs: 1_000 },
          ],
        }),
      ),
    );
    const [crash, stallNode, stallBackend] = r.faults.map((f) => f.exposure.counts);
    expect(crash!['requests answered with a storage error']).toBeGreaterThan(0);
    expect(crash!['writes lost']).toBeGreaterThan(0);
    expect(stallNode!['requests held by the pause']).toBeGreaterThan(0);
    expect(stallBackend!['requests held by the pause']).toBeGreaterThan(0);
    expect(r.faults.map((f) => f.family)).toEqual(['backend-crash', 'node-stall', 'node-stall']);

    const primary = parseSimConfig(small({ faults: [{ at: 100, kind: 'stall-backend', zone: 'a', durationMs: 100 }] }));
    expect(configProblems(primary)).toEqual(['faults.0 (stall-backend): only on topology dynomite; this one is primary-replica']);
    expect(applicableFamilies(primary)).not.toContain('backend-crash');
    expect(applicableFamilies(primary)).not.toContain('node-stall');
  });

  it('healing a redis crash leaves a stalled node stalled, and healing the stall resumes it', async () => {
    const w = world('dynomite', ['a', 'b'], 10);
    const dynomite = w.topology as DynomiteTopology;
    dynomite.crashBackend(w.topology.nodes[0]!, false);
    dynomite.pause(w.topology.nodes[1]!, 'dynomite', w.kernel.now + 600_000);
    const faultWorld = { ...w, actor: () => undefined, actors: () => [], heldBy: () => [], inFlight: () => 0 } as unknown as FaultWorld;
    FAULT_FAMILIES['backend-crash'].healAll(faultWorld);
    await w.advance(1_000); // Dynomite serves the restarted redis from its next try, 1 s after it died
    const store = w.client('c', 'a', { consistency: 'DC_ONE' });
    expect(await w.settle(store.hset('h', 'f', 'v'))).toBe(1);
    await w.advance(1_000);
    expect(w.topology.nodes.map((n) => n.keyspace.exec('hget', ['h', 'f']))).toEqual(['v', null]);
    FAULT_FAMILIES['node-stall'].healAll(faultWorld);
    expect(w.topology.nodes.map((n) => n.keyspace.exec('hget', ['h', 'f']))).toEqual(['v', 'v']);
  });

  it('pauses are drawn up to three leases long, and some outlive the lease', () => {
    const config = parseSimConfig(small({}));
    const pauses = generateFaults(new Rng('p'), { count: 50, safetyMs: 3_000, config, families: ['client-pause'] });
    expect(pauses.some((f) => f.kind === 'pause-client' && f.durationMs > 500)).toBe(true);
  });

  it("the node-stall rows start their pauses during the traffic and reach Dynomite's timeouts", async () => {
    const rows = CONFIGURATIONS.filter((c) => c.faults === 'node-stall' && c.profile === 'basic');
    expect(rows.map((r) => r.name)).toEqual(['dynomite/DC_QUORUM/legacy/node-stall', 'dynomite/DC_QUORUM/atomic/node-stall', 'dynomite/DC_SAFE_QUORUM/atomic/node-stall']);
    expect(CONFIGURATIONS.filter((c) => c.faults === 'node-stall' && c.profile === 'full').map((r) => r.name)).toEqual([
      'dynomite/DC_QUORUM/legacy/node-stall/full',
      'dynomite/DC_QUORUM/atomic/node-stall/full',
      'dynomite/DC_SAFE_QUORUM/atomic/node-stall/full',
    ]);
    const exposures = new Set<string>();
    for (const row of rows) {
      for (const seed of ['g0', 'g1', 'g2', 'g3', 'g4', 'g5']) {
        const input = configurationRun(row, seed);
        // Drawn within the first 4 s, as in every row; the 12 s phase only lets them last longer.
        for (const f of input.faults ?? []) expect(f.at).toBeLessThan(4_000);
        const r = await runSimulation(parseSimConfig(input));
        for (const s of r.faults) for (const kind of Object.keys(s.exposure.counts)) exposures.add(kind);
      }
    }
    // A 4 s safety phase never let a pause outlast the 5 s datastore timeout (the liveness phase resumes it).
    expect(exposures).toContain('requests Dynomite timed out');
    expect(exposures).toContain('peer links timed out');
  });

  it('a fault start window narrower than the safety phase bounds when faults start, not how long they last', () => {
    const config = parseSimConfig(small({ topology: { kind: 'dynomite', zones: ['a', 'b', 'c'] }, phases: { safetyMs: 12_000, livenessMs: 20_000 } }));
    const stalls = generateFaults(new Rng('w'), { count: 60, safetyMs: 12_000, startWithinMs: 4_000, config, families: ['node-stall'] });
    expect(stalls.every((f) => f.at < 4_000)).toBe(true);
    expect(stalls.some((f) => 'durationMs' in f && f.durationMs > 6_000)).toBe(true);
  });
});

describe('operation outcomes in a run', () => {
  it('a call in flight when its client crashes is recorded as unknown, at the crash', async () => {
    const r = await runSimulation(
      parseSimConfig(
        small({
          topology: { kind: 'dynomite', zones: ['a'] },
          network: { latencyBaseMs: 50, latencyJitterMs: 0 },
          workload: { messages: 10, producers: 1, rate: 10, consumers: 1, consumerBatch: 1, processingMeanMs: 0 },
          faults: [{ at: 2_000, kind: 'crash-client', actor: 'producer-0' }],
        }),
      ),
    );
    const unknown = r.history.filter((o) => o.outcome === 'unknown');
    expect(unknown.length).toBeGreaterThan(0);
    expect(unknown.every((o) => o.process === 'producer-0' && o.completedAt === 1_700_000_002_000)).toBe(true);
  });

  it('an ack refused because the lease moved on is a fail; the next holder is not a double pop of the same holder', async () => {
    const r = await runSimulation(
      parseSimConfig(
        small({
          topology: { kind: 'dynomite', zones: ['a'] },
          workload: { messages: 10, producers: 1, rate: 100, consumers: 1, consumerBatch: 5, processingMeanMs: 100 },
          faults: [{ at: 150, kind: 'pause-client', actor: 'consumer-0', durationMs: 1_500 }],
        }),
      ),
    );
    expect(r.history.some((o) => o.type === 'ack' && o.outcome === 'fail')).toBe(true);
    expect(r.report.counts['double-pop']).toBe(0);
    expect(r.report.counts.duplicate).toBeGreaterThan(0);
  });

  it('mechanisms name the fault whose exposure touched the message', async () => {
    const r = await runSimulation(
      parseSimConfig(
        small({
          queue: { unackTimeoutMs: 2_000, reaperIntervalMs: 100 },
          topology: { kind: 'dynomite', zones: ['a'] },
          workload: { messages: 40, producers: 1, rate: 20, consumers: 2, consumerBatch: 1, processingMeanMs: 800 },
          faults: [{ at: 0, kind: 'clock-skew', target: 'consumer-1', offsetMs: 1_900 }],
        }),
      ),
    );
    const m = classifyFindings(r.report.violations, r.history, r.faults);
    expect(m.length).toBeGreaterThan(0);
    expect(m.every((x) => x.cause.startsWith('clock of a client'))).toBe(true);
  });

  it('a pause that began while a pop was in flight holds that pop past its lease: the exposure counts the call, and the queue keeps what it leased back instead of handing over a lease another consumer may hold', async () => {
    // consumer-0's pop is on the wire (50 ms each way) when it stalls; the reply reaches it 800 ms
    // later, after its 500 ms lease ran out and another consumer may have taken the message. The queue
    // keeps such a lease back (docs/API.md), so this is no double pop any more.
    const r = await runSimulation(
      parseSimConfig(
        small({
          topology: { kind: 'dynomite', zones: ['a'] },
          network: { latencyBaseMs: 50, latencyJitterMs: 0 },
          workload: { messages: 10, producers: 1, rate: 20, consumers: 3, consumerBatch: 5, processingMeanMs: 200 },
          seed: 'pause-pop',
          faults: [{ at: 130, kind: 'pause-client', actor: 'consumer-0', durationMs: 800 }],
        }),
      ),
    );
    const pause = r.faults[0]!.exposure;
    const doublePops = r.report.violations.filter((v) => v.kind === 'double-pop');
    expect(doublePops).toEqual([]);
    expect(pause.counts['calls in flight'], 'the pause held the pop in flight').toBeGreaterThan(0);
    // The held pop returned after the pause and handed consumer-0 none of what the pause held.
    const heldPops = r.history.filter((o) => o.type === 'pop' && o.process === 'consumer-0' && o.completedAt - o.invokedAt >= 800) as unknown as { delivered: number }[];
    expect(heldPops.length).toBeGreaterThan(0);
    const lateDeliveries = r.history.filter((o) => o.type === 'deliver' && o.process === 'consumer-0' && o.completedAt - o.invokedAt >= 800);
    expect(lateDeliveries).toEqual([]);
  });
});
