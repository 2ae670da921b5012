import type { Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import type { RealCluster } from '../../src/real/cluster.js';
import { redisInfo } from '../../src/real/processes/redis-info.js';
import { ownedPids } from '../../src/real/processes/owned-children.js';
import { until } from '../../src/real/processes/until.js';
import { RealProcessError } from '../../src/real/real-process-error.js';
import { startRealCluster } from '../../src/real/start-cluster.js';
import { dynomiteBinary, dynomiteRequired } from '../support/dynomite-cluster.js';
import { redisRequired, redisServerBinary } from '../support/redis-server.js';

/**
 * startRealCluster on real processes: the faults a real twin strikes (SIGKILL and restart, empty or
 * from the AOF, SIGSTOP/SIGCONT) do what they say, and stop() leaves no process behind. Skipped only
 * when a binary is absent and REQUIRE_REDIS / REQUIRE_DYNOMITE is not set.
 */
const redisAvailable = redisServerBinary() !== null;
if (!redisAvailable && redisRequired) throw new Error('REQUIRE_REDIS=1 but redis-server is not installed');
const dynomiteAvailable = redisAvailable && dynomiteBinary() !== null;
if (!dynomiteAvailable && dynomiteRequired) throw new Error('REQUIRE_DYNOMITE=1 but the Dynomite build (scripts/build-dynomite.sh) or redis-server is missing');

const ZONES = ['us-east-1a', 'us-east-1b', 'us-east-1c'];
const [A, B, C] = ZONES as [string, string, string];
const STORAGE_TEXT = 'ERR Storage: Datastore refused connection';

/** A client that is ready (the Dynomite one has set its consistency). */
async function ready(client: Redis): Promise<Redis> {
  client.on('error', () => undefined);
  if (client.status !== 'ready') await new Promise((r) => client.once('ready', r));
  return client;
}

/** The PIDs the cluster started (owned now, not before), and whether any is still alive. */
function alive(pids: readonly number[]): number[] {
  return pids.filter((pid) => {
    try {
      process.kill(pid, 0);
      return true;
    } catch {
      return false;
    }
  });
}

/** `what` settles within `ms` (a paused process answers nothing). */
async function settlesWithin<T>(what: Promise<T>, ms: number): Promise<boolean> {
  return Promise.race([what.then(() => true, () => true), new Promise<boolean>((r) => setTimeout(() => r(false), ms))]);
}

const portOf = (client: Redis) => client.options.port!;

describe.runIf(redisAvailable)('startRealCluster: primary-replica (redis-server per zone, 3 Sentinels)', () => {
  let cluster: RealCluster | undefined;
  afterEach(async () => {
    await cluster?.stop();
    cluster = undefined;
  });

  it('a quorum write reaches every replica; a crashed primary is replaced; the old one, restarted, follows the new primary', async () => {
    const c = (cluster = await startRealCluster({ kind: 'primary-replica', zones: ZONES, failoverDelayMs: 1_000 }));
    const quorum = await ready(c.client(A, 'quorum'));
    await quorum.hset('q:h', 'f', 'v1');
    await quorum.zadd('q:z', 2, 'b', 1, 'a');
    const expected = { 'q:h': JSON.stringify([['f', 'v1']]), 'q:z': JSON.stringify([['a', '1'], ['b', '2']]) };
    await until('every replica holding the write', 20_000, async () => (await c.dumps('q:')).every((d) => JSON.stringify(d) === JSON.stringify(expected)));
    expect(await c.dumps('q:')).toHaveLength(3);
    expect(await (await ready(c.client(C, 'nonQuorum'))).hget('q:h', 'f')).toBe('v1');

    const primaryPort = portOf(await ready(c.client(A, 'nonQuorum')));
    const crashedAt = Date.now();
    await c.crashNode(A);
    // The quorum client follows Sentinel to the promoted replica.
    await until('a write through the quorum client after the failover', 20_000, async () => (await quorum.hset('q:h', 'after', 'v2')) >= 0);
    const failoverMs = Date.now() - crashedAt;
    const promoted = await c.primaryZone();
    // Sentinel is still reconfiguring the other replica: a connection may close under load, so ask again.
    let roles: (string | undefined)[] = [];
    await until('both replicas answering INFO after the failover', 10_000, async () => {
      roles = await Promise.all([B, C].map(async (z) => (await redisInfo(portOf(await ready(c.client(z, 'nonQuorum'))), 'replication')).role));
      return true;
    });
    expect(roles.sort()).toEqual(['master', 'slave']);
    expect(failoverMs).toBeLessThan(10_000);
    console.log(`primary-replica: failover (down-after 1 s) answered the quorum client's write after ${failoverMs} ms`);

    await c.restartNode(A, { empty: false });
    const restartedAt = Date.now();
    // It comes back a primary holding its AOF; Sentinel demotes it after ~8 s (see primary-replica-cluster.ts).
    let role = '';
    await until('the restarted old primary answering INFO', 5_000, async () => {
      role = (await redisInfo(primaryPort, 'replication')).role ?? '';
      return true;
    });
    expect(role).toBe('master');
    await until('the old primary replicating the new one', 25_000, async () => (await redisInfo(primaryPort, 'replication')).master_link_status === 'up');
    console.log(`primary-replica: the restarted old primary became a replica after ${Date.now() - restartedAt} ms`);
    // The quorum client may be reconnecting while Sentinel reconfigures ("Connection is closed" under load).
    await until('a write through the quorum client after the restart', 20_000, async () => (await quorum.hset('q:h', 'later', 'v3')) >= 0);
    // The rejoining server resynchronises in full, which Redis starts only repl-diskless-sync-delay (5 s) after it asks
    // (and again if a sync is cut short: under a loaded full suite this took more than 30 s once).
    // Replication is asynchronous and the quorum client waits for no replica: once in a loaded full suite (and
    // never in 5 runs alone beside 3 busy loops) the write after the restart ended on no server. Redis documents such
    // losses at a failover; the test writes it again, says what Sentinel and the servers reported, and asserts the
    // convergence this test is about (fails if it is lost three times).
    let last: unknown = null;
    let rewrites = 0;
    const views = async () => JSON.stringify({ sentinelNames: await c.primaryZone(), roles: await Promise.all(ZONES.map(async (z) => {
      const info = await redisInfo(c.redisPort(z), 'replication').catch(() => ({} as Record<string, string>));
      return `${z}: ${info.role ?? '?'} of ${info.master_port ?? '-'} link ${info.master_link_status ?? '-'}`;
    })) });
    await until('all three equal again, holding the new primary\'s writes', 60_000, async () => {
      const dumps = await c.dumps('q:');
      last = dumps;
      const equal = dumps.length === 3 && dumps.every((d) => JSON.stringify(d) === JSON.stringify(dumps[0]));
      const fields = equal ? Object.fromEntries(JSON.parse(dumps[0]!['q:h']!) as [string, string][]) : {};
      if (equal && fields['after'] === 'v2' && !('later' in fields)) {
        rewrites++;
        console.log(`primary-replica: the write after the restart is on no server (Sentinel named ${promoted} after the crash): ${await views()}; written again`);
        await quorum.hset('q:h', 'later', 'v3');
        return false;
      }
      return equal && fields['f'] === 'v1' && fields['after'] === 'v2' && fields['later'] === 'v3';
    }).catch(async (err: unknown) => {
      throw new Error(`${err instanceof Error ? err.message : String(err)}; last dumps: ${JSON.stringify(last)}; ${await views()}`);
    });
    expect(rewrites).toBeLessThan(3);
  }, 150_000);

  it('a primary restarted within the failover delay stays primary: from its AOF it keeps its data, `empty` it wipes its replicas; pause; stop() kills all', async () => {
    const before = new Set(ownedPids());
    const c = (cluster = await startRealCluster({ kind: 'primary-replica', zones: ZONES, failoverDelayMs: 10_000 }));
    const pids = ownedPids().filter((p) => !before.has(p));
    expect(pids).toHaveLength(6); // 3 redis-servers, 3 Sentinels
    const quorum = await ready(c.client(A, 'quorum'));
    await quorum.set('q:s', 'kept');
    await until('replicated', 20_000, async () => (await c.dumps('q:')).every((d) => d['q:s'] === 'kept'));

    await c.crashNode(A);
    await c.restartNode(A, { empty: false });
    expect(await (await ready(c.client(A, 'nonQuorum'))).get('q:s')).toBe('kept');

    await c.crashNode(A);
    await c.restartNode(A, { empty: true });
    expect(await (await ready(c.client(A, 'nonQuorum'))).get('q:s')).toBeNull();
    // No failover happened, so the replicas resync from the empty primary and drop what they held.
    await until('the replicas emptied by the resync', 20_000, async () => (await c.dumps('q:')).every((d) => Object.keys(d).length === 0));
    expect(await c.dumps('q:')).toHaveLength(3);

    const replica = await ready(c.client(B, 'nonQuorum'));
    c.pause(B, 'node');
    expect(await c.dumps('q:')).toHaveLength(2);
    const read = replica.get('q:x');
    expect(await settlesWithin(read, 500)).toBe(false);
    c.resume(B, 'node');
    expect(await read).toBeNull();
    expect(() => c.pause(B, 'backend')).toThrow(RealProcessError);
    await expect(c.crashBackend(B)).rejects.toMatchObject({ code: 'not-on-topology' });
    expect(() => c.partition(A, B, false)).toThrow(expect.objectContaining({ code: 'not-on-topology' }));
    expect(() => c.client('nowhere', 'quorum')).toThrow(expect.objectContaining({ code: 'unknown-zone' }));

    c.pause(C, 'node');
    await c.stop();
    expect(alive(pids)).toEqual([]);
    await c.stop();
  }, 60_000);

});

describe.runIf(dynomiteAvailable)('startRealCluster: Dynomite (one rack per zone, a redis-server per node)', () => {
  let cluster: RealCluster | undefined;
  afterEach(async () => {
    await cluster?.stop();
    cluster = undefined;
  });
  const start = async () => (cluster = await startRealCluster({ kind: 'dynomite', zones: ZONES, quorumConsistency: 'DC_SAFE_QUORUM', nonQuorumConsistency: 'DC_ONE' }));

  it('crashNode takes the node out; restartNode brings it back from its AOF, or empty', async () => {
    const c = await start();
    const quorum = await ready(c.client(A, 'quorum'));
    await quorum.hset('q:h', 'f', 'v');
    await until('every node holding the write', 20_000, async () => (await c.dumps('q:')).filter((d) => d['q:h'] !== undefined).length === 3);

    await c.crashNode(B);
    expect(await c.dumps('q:')).toHaveLength(2);
    const onB = c.client(B, 'nonQuorum');
    onB.on('error', () => undefined);
    await expect(onB.get('q:h')).rejects.toThrow();
    onB.disconnect();
    await c.restartNode(B, { empty: false });
    expect((await c.dumps('q:')).map((d) => d['q:h'])).toEqual([JSON.stringify([['f', 'v']]), JSON.stringify([['f', 'v']]), JSON.stringify([['f', 'v']])]);
    // A safe-quorum write through the restarted node answers (retried: under load one may time out while its peer links reconnect).
    const viaB = await ready(c.client(B, 'quorum'));
    await until('a DC_SAFE_QUORUM write through the restarted node', 20_000, async () => (await viaB.hset('q:h', 'g', 'w')) >= 0);

    await c.crashNode(C);
    await c.restartNode(C, { empty: true });
    const dumps = await c.dumps('q:');
    expect(dumps).toHaveLength(3);
    // Dynomite repairs nothing by itself: the emptied node stays empty until written.
    expect(dumps[2]).toEqual({});
    expect(dumps[0]!['q:h']).toBe(JSON.stringify([['f', 'v'], ['g', 'w']]));
    const viaC = await ready(c.client(C, 'nonQuorum'));
    let exists: number | null = null;
    await until('a DC_ONE read through the emptied node', 20_000, async () => (exists = await viaC.exists('q:h')) !== null);
    expect(exists).toBe(0);
  }, 60_000);

  it('crashBackend: the node answers "Datastore refused connection" until restartBackend', async () => {
    const c = await start();
    const one = await ready(c.client(A, 'nonQuorum'));
    await c.crashBackend(A);
    await expect(one.hset('q:h', 'f', 'v')).rejects.toThrow(STORAGE_TEXT);
    expect(await c.dumps('q:')).toHaveLength(2);
    await c.restartBackend(A, { empty: false });
    const restartedAt = Date.now();
    await until('the node writing to its restarted redis', 20_000, async () => (await one.hset('q:h', 'g', 'w')) === 1);
    console.log(`dynomite: a write answered ${Date.now() - restartedAt} ms after its redis restarted`);
    // The refused write ran on the peers only: nothing brings it to the restarted redis.
    expect((await c.dumps('q:')).map((d) => d['q:h'])).toEqual([JSON.stringify([['g', 'w']]), JSON.stringify([['f', 'v'], ['g', 'w']]), JSON.stringify([['f', 'v'], ['g', 'w']])]);
  }, 60_000);

  it('partition holds the peer-link bytes between two nodes: a DC_ONE write through b reaches a, not c, until heal delivers it 6 s later; overlapping partitions heal one at a time', async () => {
    const c = (cluster = await startRealCluster({ kind: 'dynomite', zones: ZONES, quorumConsistency: 'DC_ONE', nonQuorumConsistency: 'DC_ONE' }));
    const viaB = await ready(c.client(B, 'quorum'));
    const viaC = await ready(c.client(C, 'quorum'));
    const holders = async (key: string) => (await c.dumps('q:')).map((d) => d[key] !== undefined);
    c.partition(B, C, false);
    c.partition(B, C, true);
    const partitionedAt = Date.now();
    await viaB.set('q:b', '1');
    await viaC.set('q:c', '1');
    await until('b\'s write on a, c\'s write on a', 10_000, async () => (await holders('q:b'))[0]! && (await holders('q:c'))[0]!);
    await new Promise((r) => setTimeout(r, 500));
    expect(await holders('q:b')).toEqual([true, true, false]);
    expect(await holders('q:c')).toEqual([true, false, true]);

    // Past the configured `timeout: 5000` (a peer read's; a peer write's is 25.2 s, docs/DYNOMITE.md):
    // the peer link is not closed, so the held bytes are delivered at the heal.
    await new Promise((r) => setTimeout(r, Math.max(0, 6_000 - (Date.now() - partitionedAt))));
    c.heal(B, C); // the both-ways one: c→b flows again, b→c is still held by the one-way one
    await until('c\'s write on b', 10_000, async () => (await holders('q:c'))[1]!);
    await new Promise((r) => setTimeout(r, 500));
    expect(await holders('q:b')).toEqual([true, true, false]);
    c.heal(B, C);
    await until('b\'s held write on c after the heal', 10_000, async () => (await holders('q:b'))[2]!);
    await viaB.set('q:after', '1');
    await until('a write after the heal on every node', 10_000, async () => (await holders('q:after')).every(Boolean));
    c.heal(B, C); // none in effect: nothing happens
  }, 60_000);

  it('pause holds a node (Dynomite) or its backend (redis) silent until resume; stop() kills all, paused ones too', async () => {
    const before = new Set(ownedPids());
    const c = await start();
    const pids = ownedPids().filter((p) => !before.has(p));
    expect(pids).toHaveLength(6); // 3 Dynomites, 3 redis-servers
    const one = await ready(c.client(B, 'nonQuorum'));
    for (const which of ['node', 'backend'] as const) {
      c.pause(B, which);
      expect(await c.dumps('q:')).toHaveLength(2);
      const read = one.get('q:x');
      expect(await settlesWithin(read, 500)).toBe(false);
      c.resume(B, which);
      expect(await read).toBeNull();
    }
    c.pause(A, 'node');
    c.pause(C, 'backend');
    await c.stop();
    expect(alive(pids)).toEqual([]);
    await c.stop();
  }, 60_000);
});
