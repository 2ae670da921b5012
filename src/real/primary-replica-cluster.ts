import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Redis } from 'ioredis';
import { connect } from '../store/connect.js';
import type { ConnectionRole, RealCluster } from './cluster.js';
import { dumpKeys } from './key-dump.js';
import { freePort } from './processes/free-port.js';
import { hasExited, pauseOwned, resumeOwned } from './processes/owned-children.js';
import { withProbe } from './processes/probe.js';
import { redisInfo } from './processes/redis-info.js';
import { startRedisServer, type RedisServer } from './processes/redis-server.js';
import { startSentinel, type RedisSentinel } from './processes/sentinel.js';
import { until } from './processes/until.js';
import { RealProcessError } from './real-process-error.js';
import { zoneIndex } from './zone-index.js';

export interface PrimaryReplicaSpec {
  readonly kind: 'primary-replica';
  readonly zones: readonly string[];
  /** Sentinel's `down-after-milliseconds`: how long the primary may be silent before a failover starts. */
  readonly failoverDelayMs: number;
  /** How every server fsyncs its AOF (default always: a SIGKILL loses nothing a node acknowledged). */
  readonly appendfsync?: 'always' | 'everysec';
  /** Every server's `repl-diskless-sync-delay`, in ms (whole seconds); absent: Redis's default (5 s). */
  readonly fullSyncDelayMs?: number;
  /** Sentinel's `failover-timeout` (default 3 s): a failed failover is retried twice this long after it started. */
  readonly failoverTimeoutMs?: number;
}

/** The Sentinel master group name. */
const MASTER_NAME = 'dynoq';
const SENTINELS = 3;
const SENTINEL_QUORUM = 2;
/** Also the delay before Sentinel repoints a replica that follows a wrong primary. */
const FAILOVER_TIMEOUT_MS = 3_000;
/** An AOF: with `always` every write is fsynced before it is answered; with either, a SIGKILL loses nothing acknowledged by that node (written to the file before the reply). */
const aofArgs = (appendfsync: 'always' | 'everysec') => ['--appendonly', 'yes', '--appendfsync', appendfsync];
const fullSyncArgs = (spec: PrimaryReplicaSpec) => (spec.fullSyncDelayMs === undefined ? [] : ['--repl-diskless-sync-delay', String(spec.fullSyncDelayMs / 1000)]);

/**
 * Every server starts from its own configuration file, which holds its role (`replicaof`, zones
 * after the first). Sentinel changes a role with `REPLICAOF` followed by `CONFIG REWRITE`, so a
 * restarted server comes back in the last role Sentinel gave it, as a deployed one would. A role on
 * the command line would override that on every restart.
 */
function writeServerConfig(dir: string, primaryPort: number | null): string {
  const file = join(dir, 'redis.conf');
  writeFileSync(file, primaryPort === null ? '' : `replicaof 127.0.0.1 ${primaryPort}\n`);
  return file;
}

async function replicasInSync(primaryPort: number, replicaPorts: readonly number[]): Promise<boolean> {
  const info = await redisInfo(primaryPort, 'replication');
  const offset = info.master_repl_offset;
  const online = Object.entries(info).filter(([k, v]) => /^slave\d+$/.test(k) && v.includes('state=online') && v.includes(`offset=${offset},`));
  return replicaPorts.every((port) => online.some(([, v]) => v.includes(`port=${port},`)));
}

/** The port of the primary the first Sentinel that answers names (null: none answers). */
async function primaryPort(sentinels: readonly RedisSentinel[]): Promise<number | null> {
  for (const s of sentinels) {
    try {
      const addr = (await withProbe(s.port, (c) => c.call('SENTINEL', 'GET-MASTER-ADDR-BY-NAME', MASTER_NAME))) as [string, string] | null;
      if (addr) return Number(addr[1]);
    } catch {
      // That Sentinel does not answer: ask the next.
    }
  }
  return null;
}

/** Every sentinel lists every replica and the other sentinels (learnt from hello messages, every 2 s). */
async function sentinelsKnowAll(sentinels: readonly RedisSentinel[], replicas: number): Promise<boolean> {
  for (const s of sentinels) {
    const knowsAll = await withProbe(s.port, async (c) => {
      const known = (await c.call('SENTINEL', 'REPLICAS', MASTER_NAME)) as unknown[];
      const peers = (await c.call('SENTINEL', 'SENTINELS', MASTER_NAME)) as unknown[];
      return known.length === replicas && peers.length === sentinels.length - 1;
    });
    if (!knowsAll) return false;
  }
  return true;
}

/**
 * One redis-server per zone (zone 0's the first primary, the others its replicas), each with an
 * AOF fsynced always in its own directory, and 3 Sentinels (quorum 2) that fail over to a replica
 * once the primary has been silent for `failoverDelayMs`.
 *
 * A restarted server, as real Redis and Sentinel do it (sentinel.c, sentinelRefreshInstanceInfo):
 * - after a failover, the old primary comes back as a primary (its file has no `replicaof`) with
 *   whatever its AOF held, or nothing (`empty`), and takes direct writes; Sentinel, which now lists
 *   it as a replica, sends it `REPLICAOF <new primary>` once it has reported the primary role for
 *   8 s (SENTINEL_PUBLISH_PERIOD × 4); it then drops its data and resyncs from the new primary.
 * - without a failover (restarted within `failoverDelayMs`), it is still the primary: restarted
 *   `empty`, its replicas resync from it and lose their data too.
 * - a replica comes back following the primary its file names; if that is no longer the primary,
 *   Sentinel repoints it after the failover timeout (3 s).
 */
export async function startPrimaryReplicaCluster(spec: PrimaryReplicaSpec): Promise<RealCluster> {
  const zones = [...spec.zones];
  const root = mkdtempSync(join(tmpdir(), 'dynoq-primary-replica-'));
  const servers: RedisServer[] = [];
  const sentinels: RedisSentinel[] = [];
  const clients: Redis[] = [];
  const paused = new Set<number>();
  let stopped = false;
  const stop = async () => {
    for (const c of clients.splice(0)) c.disconnect();
    for (const s of sentinels) await s.stop();
    for (const s of servers) await s.stop();
    paused.clear();
    if (!stopped) rmSync(root, { recursive: true, force: true });
    stopped = true;
  };
  try {
    const primaryPort = await freePort();
    for (const [i] of zones.entries()) {
      const dir = join(root, `zone-${i}`);
      mkdirSync(dir);
      const configFile = writeServerConfig(dir, i === 0 ? null : primaryPort);
      servers.push(await startRedisServer({ dir, configFile, args: [...aofArgs(spec.appendfsync ?? 'always'), ...fullSyncArgs(spec)], ...(i === 0 ? { port: primaryPort } : {}) }));
    }
    const replicaPorts = servers.slice(1).map((s) => s.port);
    await until('every replica in sync with the primary', 30_000, () => replicasInSync(primaryPort, replicaPorts));
    for (let i = 0; i < SENTINELS; i++) {
      sentinels.push(await startSentinel({ masterPort: primaryPort, name: MASTER_NAME, quorum: SENTINEL_QUORUM, downAfterMs: spec.failoverDelayMs, failoverTimeoutMs: spec.failoverTimeoutMs ?? FAILOVER_TIMEOUT_MS }));
    }
    await until('every sentinel knowing every replica and the other sentinels', 30_000, () => sentinelsKnowAll(sentinels, replicaPorts.length), 200);
  } catch (err) {
    await stop();
    throw err;
  }
  const server = (zone: string) => servers[zoneIndex(zones, zone)]!;
  const onlyNode = (which: 'node' | 'backend', what: string) => {
    if (which !== 'node') throw new RealProcessError('not-on-topology', `${what}: primary-replica has no separate backend, only the zone's redis-server (node)`);
  };
  return {
    kind: 'primary-replica',
    zones,
    client(zone: string, role: ConnectionRole): Redis {
      zoneIndex(zones, zone);
      const c = (
        role === 'quorum'
          ? connect(undefined, { sentinels: sentinels.map((s) => ({ host: '127.0.0.1', port: s.port })), name: MASTER_NAME })
          : connect(server(zone).url)
      ) as Redis;
      clients.push(c);
      return c;
    },
    nodeAddress() {
      throw new RealProcessError('not-on-topology', 'a failover client moves between Dynomite nodes; a primary with replicas is followed through Sentinel');
    },
    async crashNode(zone) {
      paused.delete(zoneIndex(zones, zone));
      await server(zone).kill();
    },
    async restartNode(zone, { empty, asReplica }) {
      paused.delete(zoneIndex(zones, zone));
      const s = server(zone);
      // A supervisor that starts it as a replica of the primary Sentinel names now: its file says so.
      if (asReplica) {
        const primary = await primaryPort(sentinels);
        if (primary !== null && primary !== s.port) writeServerConfig(s.dir, primary);
      }
      await s.restart({ empty });
    },
    async primaryZone() {
      const port = await primaryPort(sentinels);
      const i = servers.findIndex((s) => s.port === port);
      return i < 0 ? null : zones[i]!;
    },
    crashBackend() {
      return Promise.reject(new RealProcessError('not-on-topology', 'crashBackend: primary-replica has no separate backend (use crashNode)'));
    },
    restartBackend() {
      return Promise.reject(new RealProcessError('not-on-topology', 'restartBackend: primary-replica has no separate backend (use restartNode)'));
    },
    // Its clients reach the primary across zones through Sentinel: a partition would need the
    // Sentinel, replication and client links proxied, not built.
    partition() {
      throw new RealProcessError('not-on-topology', 'partition: primary-replica has no proxied links (clients and replication cross zones through Sentinel; not built)');
    },
    heal() {
      throw new RealProcessError('not-on-topology', 'heal: primary-replica has no partitions');
    },
    addPeerLinkLag() {
      throw new RealProcessError('not-on-topology', "addPeerLinkLag: primary-replica has no proxied links (a primary's replication runs on loopback)");
    },
    pause(zone, which) {
      onlyNode(which, 'pause');
      pauseOwned(server(zone).process);
      paused.add(zoneIndex(zones, zone));
    },
    resume(zone, which) {
      onlyNode(which, 'resume');
      resumeOwned(server(zone).process);
      paused.delete(zoneIndex(zones, zone));
    },
    redisPort: (zone) => server(zone).port,
    // A paused server would never answer: only the running, unpaused ones, in zone order.
    async dumps(prefix) {
      const up = servers.filter((s, i) => !hasExited(s.process) && !paused.has(i));
      return Promise.all(up.map((s) => dumpKeys(s.port, prefix)));
    },
    stop,
  };
}
