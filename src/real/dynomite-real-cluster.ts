import type { Redis } from 'ioredis';
import { connect } from '../store/connect.js';
import type { ConnectionRole, RealCluster } from './cluster.js';
import { dumpKeys } from './key-dump.js';
import { startDynomiteCluster, type DynomiteConsistency } from './processes/dynomite-cluster.js';
import type { LinkDelays } from './processes/link-proxy.js';
import { carriesReplicatedRequest } from './processes/dynomite-peer-message.js';
import { zoneIndex } from './zone-index.js';

export interface DynomiteSpec {
  readonly kind: 'dynomite';
  readonly zones: readonly string[];
  readonly quorumConsistency: DynomiteConsistency;
  readonly nonQuorumConsistency: DynomiteConsistency;
  /** Delays on the nodes' peer links (default none: loopback). */
  readonly peerLinkDelays?: LinkDelays;
}

/** Every write fsynced before it is answered: a SIGKILL loses nothing acknowledged by that redis. */
const AOF_ARGS = ['--appendonly', 'yes', '--appendfsync', 'always'];

/**
 * One Dynomite rack per zone (one datacenter, 1 node a rack, token 0: every node holds every key),
 * each node with its own redis-server (AOF fsynced always, own directory). Queue clients are the
 * package's `connect()` on the zone's node at the consistency of their role.
 */
export async function startDynomiteRealCluster(spec: DynomiteSpec): Promise<RealCluster> {
  const zones = [...spec.zones];
  // A lag spike's extra delay rides on every replicated request's own, as simulated (reads sent for
  // a vote are not replicated); 0 on loopback links: sent at once.
  let extraLagMs = 0;
  const own = spec.peerLinkDelays ?? {};
  const peerLinkDelays = { ...own, upstream: (chunk: Buffer) => (own.upstream?.(chunk) ?? 0) + (extraLagMs > 0 && carriesReplicatedRequest(chunk) ? extraLagMs : 0) };
  const cluster = await startDynomiteCluster({ racks: zones.length, redisArgs: AOF_ARGS, peerLinkDelays });
  const clients: Redis[] = [];
  const at = (zone: string) => zoneIndex(zones, zone);
  // Per directed pair `from>to`, how many partitions block it; per partition(from, to) call in
  // effect, the pairs it blocked (a one-way one, one pair).
  const blocks = new Map<string, number>();
  const partitions = new Map<string, [number, number][][]>();
  const block = (from: number, to: number) => {
    const key = `${from}>${to}`;
    const n = blocks.get(key) ?? 0;
    blocks.set(key, n + 1);
    if (n === 0) cluster.blockFlow(from, to);
  };
  const unblock = (from: number, to: number) => {
    const key = `${from}>${to}`;
    const n = blocks.get(key) ?? 0;
    if (n > 1) blocks.set(key, n - 1);
    else if (n === 1) {
      blocks.delete(key);
      cluster.unblockFlow(from, to);
    }
  };
  return {
    kind: 'dynomite',
    zones,
    client(zone: string, role: ConnectionRole, options = {}): Redis {
      const consistency = role === 'quorum' ? spec.quorumConsistency : spec.nonQuorumConsistency;
      const i = at(zone);
      // The next zones' nodes first, as the simulated failover client moves to the next zone.
      const failover = options.failover ? zones.map((_, k) => cluster.racks[(i + 1 + k) % zones.length]!).slice(0, -1).map((r) => ({ host: '127.0.0.1', port: r.port })) : undefined;
      const c = connect(cluster.racks[i]!.url, { dynomite: { consistency, ...(failover ? { failover } : {}) } }) as Redis;
      clients.push(c);
      return c;
    },
    nodeAddress: (zone) => ({ host: '127.0.0.1', port: cluster.racks[at(zone)]!.port }),
    async crashNode(zone) {
      const i = at(zone);
      await cluster.killNode(i);
      await cluster.killBackend(i);
    },
    // The datastore first, so Dynomite finds it at its first request. Done once the node answers, as
    // a simulated restart: its peers reach it at their next try (DYNOMITE.md "Heals take time").
    async restartNode(zone, { empty }) {
      const i = at(zone);
      await cluster.killNode(i);
      await cluster.restartBackend(i, { empty });
      await cluster.startNode(i, { waitForPeers: false });
    },
    // Every Dynomite node takes writes: no primary.
    primaryZone: () => Promise.resolve(null),
    crashBackend: (zone) => cluster.killBackend(at(zone)),
    restartBackend: (zone, { empty }) => cluster.restartBackend(at(zone), { empty }),
    pause(zone, which) {
      const i = at(zone);
      if (which === 'node') cluster.pauseNode(i);
      else cluster.pauseBackend(i);
    },
    resume(zone, which) {
      const i = at(zone);
      if (which === 'node') cluster.resumeNode(i);
      else cluster.resumeBackend(i);
    },
    partition(from, to, oneWay) {
      const [f, t] = [at(from), at(to)];
      const pairs: [number, number][] = oneWay ? [[f, t]] : [[f, t], [t, f]];
      for (const [a, b] of pairs) block(a, b);
      const key = `${f}>${t}`;
      partitions.set(key, [...(partitions.get(key) ?? []), pairs]);
    },
    heal(from, to) {
      const key = `${at(from)}>${at(to)}`;
      const pairs = partitions.get(key)?.shift();
      if (!pairs) return;
      if (partitions.get(key)!.length === 0) partitions.delete(key);
      for (const [a, b] of pairs) unblock(a, b);
    },
    addPeerLinkLag(ms) {
      extraLagMs = Math.max(0, extraLagMs + ms);
    },
    redisPort: (zone) => cluster.racks[at(zone)]!.redis.port,
    // Each node's redis read directly (Dynomite would coordinate the read); a node counts as up
    // when its Dynomite and redis both run and neither is paused.
    async dumps(prefix) {
      const up = cluster.racks.filter((_, i) => cluster.isServing(i));
      return Promise.all(up.map((r) => dumpKeys(r.redis.port, prefix)));
    },
    async stop() {
      for (const c of clients.splice(0)) c.disconnect();
      await cluster.stop();
    },
  };
}
