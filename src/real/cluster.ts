import type { Redis } from 'ioredis';

/** Which connection of a queue: the quorum one (writes, leases) or the non-quorum one (prefetch reads). */
export type ConnectionRole = 'quorum' | 'nonQuorum';

/**
 * Real store processes on loopback that a real twin runs on, with the faults a simulated run can
 * strike them with, done by real means (SIGKILL and restart, SIGSTOP/SIGCONT). Zones are the
 * simulated configuration's zones; each zone has one node (a redis-server, or a Dynomite node with
 * its own redis-server). Every child process is owned by PID and killed on stop and on any exit.
 */
export interface RealCluster {
  readonly kind: 'primary-replica' | 'dynomite';
  readonly zones: readonly string[];
  /**
   * A new client for a queue in `zone`, built with the package's own `connect()` (the shipped client):
   * primary-replica: quorum through Sentinel to the current primary, nonQuorum to the zone's own node;
   * Dynomite: the zone's node at the configured consistency of the role; with `failover`, connect's
   * opt-in zone failover to the other zones' nodes, the next zones first. The caller disconnects it.
   */
  client(zone: string, role: ConnectionRole, options?: { readonly failover?: boolean }): Redis;
  /** Dynomite only: where the zone's node listens (a failover client moved there by a fault); primary-replica throws RealProcessError 'not-on-topology'. */
  nodeAddress(zone: string): { readonly host: string; readonly port: number };
  /** SIGKILL the zone's node (Dynomite: the Dynomite process and its redis-server). */
  crashNode(zone: string): Promise<void>;
  /**
   * Start the zone's node again; `empty`: without the data it had (no persistence), else from its AOF.
   * `asReplica` (primary-replica): as a replica of the primary Sentinel names now, as a supervisor that
   * asks Sentinel starts it; Dynomite ignores it (every node takes writes).
   */
  restartNode(zone: string, options: { readonly empty: boolean; readonly asReplica?: boolean }): Promise<void>;
  /** primary-replica: the zone whose server Sentinel names primary now (null: none named, or not one of these); Dynomite: null. */
  primaryZone(): Promise<string | null>;
  /** Dynomite only: SIGKILL / restart the zone's redis-server, its Dynomite left running. */
  crashBackend(zone: string): Promise<void>;
  restartBackend(zone: string, options: { readonly empty: boolean }): Promise<void>;
  /** SIGSTOP / SIGCONT the zone's process: Dynomite's (`node`) or its redis-server's (`backend`); primary-replica: the redis-server. */
  pause(zone: string, which: 'node' | 'backend'): void;
  resume(zone: string, which: 'node' | 'backend'): void;
  /**
   * Dynomite only: hold every byte `from`'s node sends `to`'s node (both ways unless `oneWay`), on
   * the peer links between them; primary-replica throws RealProcessError 'not-on-topology'. Blocks
   * are counted per direction, so overlapping partitions of one pair heal one at a time.
   */
  partition(from: string, to: string, oneWay: boolean): void;
  /** Ends one partition(from, to) still in effect (none: nothing happens). */
  heal(from: string, to: string): void;
  /**
   * Dynomite only: add `ms` (negative: take it back) to the delay of every replicated request (a write
   * or a script) a node sends a peer, on top of the links' own (a lag spike); primary-replica throws
   * RealProcessError 'not-on-topology'.
   */
  addPeerLinkLag(ms: number): void;
  /** The port of the zone's redis-server (Dynomite: its backend's), for admin commands such as CONFIG SET maxmemory. */
  redisPort(zone: string): number;
  /** Every node that is up: the queue's keys (prefix) and their values, per node, for a replica comparison. */
  dumps(prefix: string): Promise<readonly Readonly<Record<string, string>>[]>;
  /** Kill every process, remove every directory. Idempotent. */
  stop(): Promise<void>;
}
