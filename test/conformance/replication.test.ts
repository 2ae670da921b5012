import { Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import { createQueue } from '../../src/queue/create-queue.js';
import { DurabilityError } from '../../src/queue/errors.js';
import type { QueueOptionsInput } from '../../src/queue/options.js';
import { ActorTimers, SkewedClock } from '../../src/sim/kernel/actor-time.js';
import { PrimaryReplicaTopology, SENTINEL_PROMOTION_MS } from '../../src/sim/topology/primary-replica.js';
import { safeRedisOptions } from '../../src/store/connect.js';
import { IoredisStore } from '../../src/store/ioredis-store.js';
import type { Store } from '../../src/store/store.js';
import { FakeTime } from '../support/fake-time.js';
import { redisRequired, redisServerBinary, startRedisServer, type RedisServer } from '../support/redis-server.js';
import { world } from '../sim/fixtures.js';
import { parseSimConfig } from '../../src/sim/run/config.js';
import { SimWorld } from '../../src/sim/run/world.js';

const available = redisServerBinary() !== null;
if (!available && redisRequired) throw new Error('REQUIRE_REDIS=1 but redis-server is not installed');

/** What the failover schedule did to three pushes: one before the replica stalled, one during, one durable. */
interface Outcome {
  readonly beforeSurvived: boolean;
  readonly duringAcknowledged: boolean;
  readonly duringSurvived: boolean;
  readonly durableAcknowledged: boolean;
  readonly durableSurvived: boolean;
}

const options = (quorum: Store, time: FakeTime | { now(): number }, timers: unknown, durable = false): QueueOptionsInput => ({
  name: 'fo',
  quorum,
  clock: time as FakeTime,
  timers: timers as FakeTime,
  unackInterval: 0,
  ...(durable ? { durable: { replicas: 1, timeoutMs: 200 } } : {}),
});

async function until(check: () => Promise<boolean>, what: string): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`timed out waiting for ${what}`);
}

describe.runIf(available)('real replication and failover (primary + replica on loopback)', () => {
  const servers: RedisServer[] = [];
  const clients: Redis[] = [];
  afterEach(async () => {
    for (const c of clients.splice(0)) c.disconnect();
    for (const s of servers.splice(0)) {
      s.process.kill('SIGCONT');
      await s.stop();
    }
  });

  /** A primary and its replica on loopback, linked; a client on each (the primary's never reconnects). */
  async function linkedPair() {
    const primary = await startRedisServer();
    const replica = await startRedisServer({ args: ['--replicaof', '127.0.0.1', String(primary.port)] });
    servers.push(primary, replica);
    const pc = new Redis({ ...safeRedisOptions({ commandTimeout: 20_000 }), port: primary.port, host: '127.0.0.1', maxRetriesPerRequest: 0, retryStrategy: () => null });
    const rc = new Redis({ ...safeRedisOptions({ commandTimeout: 20_000 }), port: replica.port, host: '127.0.0.1' });
    pc.on('error', () => undefined);
    clients.push(pc, rc);
    await until(async () => (await rc.info('replication')).includes('master_link_status:up'), 'the replica link');
    return { primary, replica, pc, rc };
  }

  async function onRealRedis(): Promise<Outcome> {
    const { primary, replica, pc, rc } = await linkedPair();
    const time = new FakeTime();
    const plain = createQueue(options(new IoredisStore(pc), time, time));
    const durable = createQueue(options(new IoredisStore(pc), time, time, true));

    await plain.push([{ id: 'before', payload: 'p' }]);
    expect(await pc.wait(1, 1_000)).toBe(1);
    // Stall the replica and cut its link: what was already in its socket buffer would still arrive.
    replica.process.kill('SIGSTOP');
    await pc.call('client', 'kill', 'type', 'replica');
    const duringAcknowledged = (await plain.push([{ id: 'during', payload: 'p' }])).length === 1;
    const durableAcknowledged = await durable.push([{ id: 'durable', payload: 'p' }]).then(
      () => true,
      (err: unknown) => {
        expect(err).toBeInstanceOf(DurabilityError);
        return false;
      },
    );
    await primary.kill();
    replica.process.kill('SIGCONT');
    await rc.replicaof('NO', 'ONE');
    const promoted = createQueue(options(new IoredisStore(rc), time, time));
    return {
      beforeSurvived: (await promoted.get('before')) !== null,
      duringAcknowledged,
      duringSurvived: (await promoted.get('during')) !== null,
      durableAcknowledged,
      durableSurvived: (await promoted.get('durable')) !== null,
    };
  }

  /** The same schedule on the simulator's primary-replica topology: a stalled replica is a cut link. */
  async function onSimulator(): Promise<Outcome> {
    const w = world('primary-replica', ['a', 'b'], 5);
    const pr = w.topology as PrimaryReplicaTopology;
    const client = w.client('client', 'a', { timeoutMs: 2_000 });
    const time = new SkewedClock(w.kernel);
    const timers = new ActorTimers(w.kernel);
    const plain = createQueue(options(client, time, timers));
    const durable = createQueue(options(client, time, timers, true));
    await w.settle(plain.push([{ id: 'before', payload: 'p' }]));
    expect(await w.settle(client.wait(1, 1_000))).toBe(1);
    w.network.block('a', 'b');
    const duringAcknowledged = (await w.settle(plain.push([{ id: 'during', payload: 'p' }]))).length === 1;
    const durableAcknowledged = await w.settle(durable.push([{ id: 'durable', payload: 'p' }])).then(
      () => true,
      (err: unknown) => {
        expect(err).toBeInstanceOf(DurabilityError);
        return false;
      },
    );
    pr.crash(pr.primary, true);
    w.network.healAll();
    // Down-after (1 s), then Sentinel's vote and promotion.
    await w.advance(1_100 + SENTINEL_PROMOTION_MS);
    expect(pr.primary.name).toBe('replica-b');
    return {
      beforeSurvived: (await w.settle(plain.get('before'))) !== null,
      duringAcknowledged,
      duringSurvived: (await w.settle(plain.get('during'))) !== null,
      durableAcknowledged,
      durableSurvived: (await w.settle(plain.get('durable'))) !== null,
    };
  }

  it('loses an acknowledged push without durable writes, never acknowledges a lost one with them, and the simulator predicts the same', async () => {
    const real = await onRealRedis();
    expect(real).toEqual({
      beforeSurvived: true,
      duringAcknowledged: true,
      duringSurvived: false,
      durableAcknowledged: false,
      durableSurvived: false,
    });
    expect(await onSimulator()).toEqual(real);
  }, 60_000);

  it('a lease token is never reused after a failover: the old holder’s ack is refused, the new holder’s accepted', async () => {
    const { primary, replica, pc, rc } = await linkedPair();
    const time = new FakeTime();
    const before = createQueue(options(new IoredisStore(pc), time, time));
    // Three rounds, as the audit ran it: each lease is taken on the primary and lost with it.
    for (const id of ['m1', 'm2', 'm3']) await before.push([{ id, payload: 'p' }]);
    expect(await pc.wait(1, 1_000)).toBe(1);
    replica.process.kill('SIGSTOP');
    await pc.call('client', 'kill', 'type', 'replica');
    const old = await before.pop(3);
    expect(old.map((m) => m.id).sort()).toEqual(['m1', 'm2', 'm3']);
    await primary.kill();
    replica.process.kill('SIGCONT');
    await rc.replicaof('NO', 'ONE');

    const after = createQueue(options(new IoredisStore(rc), time, time));
    const fresh = await after.pop(3);
    expect(fresh.map((m) => m.id).sort()).toEqual(['m1', 'm2', 'm3']);
    // One token per pop call (a server counter rolled back with the lost writes would repeat it).
    const staleTokens = new Set(old.map((m) => m.token));
    for (const m of fresh) {
      const stale = old.find((o) => o.id === m.id)!;
      expect(staleTokens.has(m.token)).toBe(false);
      expect(await after.ack(m.id, stale.token!)).toBe(false);
      expect(await after.ack(m.id, m.token!)).toBe(true);
    }
  }, 60_000);

  /**
   * A restarted Redis has a new replication history: its replicas resynchronise in full, and the
   * primary starts a full (diskless) sync only `repl-diskless-sync-delay` after the first replica
   * asks. Until then WAIT counts none of them, so every durable write fails for that long.
   */
  const FULL_SYNC_DELAY_MS = 2_000;

  async function realWaitAfterRestart(): Promise<{ atOnce: number; countedAfterMs: number }> {
    const args = ['--appendonly', 'yes', '--appendfsync', 'always', '--repl-diskless-sync-delay', String(FULL_SYNC_DELAY_MS / 1000)];
    const primary = await startRedisServer({ args });
    const replica = await startRedisServer({ args: ['--replicaof', '127.0.0.1', String(primary.port)] });
    servers.push(primary, replica);
    const rc = new Redis({ ...safeRedisOptions({ commandTimeout: 20_000 }), port: replica.port, host: '127.0.0.1' });
    clients.push(rc);
    await until(async () => (await rc.info('replication')).includes('master_link_status:up'), 'the replica link');
    await primary.kill();
    await primary.restart();
    const restartedAt = Date.now();
    const pc = new Redis({ ...safeRedisOptions({ commandTimeout: 20_000 }), port: primary.port, host: '127.0.0.1' });
    clients.push(pc);
    await pc.set('after-restart', 'v');
    const atOnce = await pc.wait(1, 100);
    let counted = 0;
    while (counted < 1 && Date.now() - restartedAt < 15_000) counted = await pc.wait(1, 100);
    expect(counted).toBe(1);
    return { atOnce, countedAfterMs: Date.now() - restartedAt };
  }

  async function simulatedWaitAfterRestart(): Promise<{ atOnce: number; countedAfterMs: number }> {
    const w = new SimWorld(
      parseSimConfig({
        seed: 'full-sync',
        topology: { kind: 'primary-replica', zones: ['a', 'b'], failoverDelayMs: 10_000, fullSyncDelayMs: FULL_SYNC_DELAY_MS },
        network: { latencyBaseMs: 1, latencyJitterMs: 0, lagMeanMs: 0, lagSpikeProbability: 0, requestTimeoutMs: 20_000, clientFailover: false },
      }),
    );
    const pr = w.topology as PrimaryReplicaTopology;
    const client = w.client('client', 'a', { role: 'quorum' });
    await w.settle(client.zadd('k', [{ member: 'a', score: 1 }]));
    expect(await w.settle(client.wait(1, 1_000))).toBe(1);
    pr.crash(pr.primary, false);
    await w.advance(300);
    pr.restart(pr.primary);
    const restartedAt = w.kernel.now;
    await w.settle(client.zadd('k', [{ member: 'b', score: 2 }]));
    const atOnce = await w.settle(client.wait(1, 100));
    let counted = 0;
    while (counted < 1 && w.kernel.now - restartedAt < 15_000) counted = await w.settle(client.wait(1, 100));
    return { atOnce, countedAfterMs: w.kernel.now - restartedAt };
  }

  it('a restarted primary: WAIT counts no replica until the full resynchronisation repl-diskless-sync-delay later, on Redis and on the simulator', async () => {
    const real = await realWaitAfterRestart();
    const simulated = await simulatedWaitAfterRestart();
    for (const side of [real, simulated]) {
      expect(side.atOnce).toBe(0);
      // The replica retries its link once a second; the sync starts the delay after it asks.
      expect(side.countedAfterMs).toBeGreaterThanOrEqual(FULL_SYNC_DELAY_MS - 500);
      expect(side.countedAfterMs).toBeLessThan(FULL_SYNC_DELAY_MS + 2_500);
    }
  }, 60_000);
});
