import type { Connection } from '../store/connection.js';
import type { Kernel } from '../kernel/kernel.js';
import type { Network } from '../kernel/network.js';
import type { Observations } from '../kernel/observations.js';
import type { Rng } from '../kernel/rng.js';
import { SimNode, type NodeScripts } from '../store/sim-node.js';
import { NODE_DIED_ERROR } from '../store/sim-store.js';
import { isWrite, type NodeReply, type StoreOp } from '../store/store-op.js';
import { nodeName } from './node-name.js';
import { REFUSED, type Topology } from '../store/topology.js';

/** Redis's default `repl-diskless-sync-delay` (5 s): how long a primary waits before a full resynchronisation. */
export const REDIS_FULL_SYNC_DELAY_MS = 5_000;

/**
 * How long Sentinel takes, once the primary has been down for `down-after-milliseconds`, to promote a
 * replica and name it to clients (agreement that the primary is down, a leader vote, `REPLICAOF NO
 * ONE`, the role seen): measured on redis-server/Sentinel 7.0 with three Sentinels, quorum 2 — named
 * 1.19–1.36 s after a down-after of 1 s (34 trials), 0.90–0.99 s after one of 5 s (3 trials).
 */
export const SENTINEL_PROMOTION_MS = 1_200;

/**
 * The replica Sentinel promotes is chosen at a moment drawn within this much of the failover's start
 * (Sentinel's random start desync and the leader vote): measured, a replica killed 1.5 s after the
 * primary (down-after 1 s) had already been chosen in 2 of 7 trials. Replicas that applied as much are
 * chosen between at random (Sentinel's last tie-break, the run id).
 */
export const SENTINEL_CHOICE_WITHIN_MS = 1_000;

/**
 * Sentinel's failover-timeout (the real twin's Sentinels run with it): a failover whose chosen replica
 * died before its promotion fails, and the next may start only twice this long after it started —
 * measured, such a primary was replaced 8.5 s after its kill instead of 2.3 s.
 */
export const SENTINEL_FAILOVER_TIMEOUT_MS = 3_000;

/**
 * How long after naming the promoted replica Sentinel reconfigures an old primary that answered
 * again before the promotion (it waits until the old one has reported the primary role for 8 s, read
 * on its 10 s INFO period), closing its clients: until then it keeps the primary role and the clients
 * that reached it stay on it. Measured on redis-server/Sentinel 7.0 (down-after 1 s): 10.2–10.4 s
 * after the naming in 4 trials, 9.9–10.0 s in 2 real twin runs.
 */
export const SENTINEL_DEMOTION_MS = 10_000;

interface Waiter {
  readonly offset: number;
  readonly replicas: number;
  readonly done: (count: number) => void;
}

/**
 * Redis primary with asynchronous replicas and Sentinel-style failover. Writes go to the primary
 * and stream to each replica in order (commands as sent, scripts as their effects) (a partitioned replica catches up after the partition heals,
 * as from the replication backlog). WAIT counts replicas that acknowledged the primary's offset.
 * When the primary stays down for `failoverDelayMs` (Sentinel's down-after-milliseconds), a failover
 * starts and, SENTINEL_PROMOTION_MS later, the replica with the most data is promoted — even if the old
 * primary came back meanwhile (measured: a primary restarted 1.1–2.1 s after it died, past a 1 s
 * down-after, was replaced all the same in 17 of 17 trials): writes it had not received are lost; the others resync
 * from it at once (a partial resync: they share its history), an old primary that came back in full.
 * Clients follow a promotion only when their connection breaks: a connection an old primary served
 * after it came back stays on it, as a primary taking writes that reach no replica, until Sentinel
 * demotes it SENTINEL_DEMOTION_MS after the promotion and closes its clients.
 * A restart gives a node a new history: after any restart of the primary, or of
 * a replica, each replica concerned needs a full resynchronisation, which Redis starts only after
 * `repl-diskless-sync-delay` (`fullSyncDelayMs`); until it ends the replica receives nothing, WAIT does
 * not count it, and it serves what it had. Non-quorum connections read from a replica in their zone
 * when there is one.
 */
export class PrimaryReplicaTopology implements Topology {
  readonly kind = 'primary-replica' as const;
  readonly nodes: SimNode[];
  primary: SimNode;
  readonly keptDown = new Set<string>();
  private offset = 0;
  private readonly applied = new Map<SimNode, number>();
  private readonly acked = new Map<SimNode, number>();
  private readonly linkClock = new Map<SimNode, number>();
  private readonly backlog = new Map<SimNode, { offset: number; op: StoreOp }[]>();
  private waiters: Waiter[] = [];
  private epoch = 0;
  /** Per replica, the number of its link to the primary: a crash or a full resynchronisation starts a new one, and what the old one still carried is dropped. */
  private readonly links = new Map<SimNode, number>();
  /** Replicas waiting for a full resynchronisation, each with the number of its pending one. */
  private readonly fullSyncs = new Map<SimNode, number>();
  private fullSyncSerial = 0;
  /** When the current primary went down (its failover is due failoverDelayMs later). */
  private primaryDownSince: number | null = null;
  /** An old primary that came back before its replacement was promoted, not yet demoted by Sentinel. */
  private stale: SimNode | null = null;
  /** Per client connection, the primary that last served it: it stays there while that one is stale. */
  private readonly served = new Map<Connection, SimNode>();

  constructor(
    private readonly kernel: Kernel,
    private readonly network: Network,
    zones: readonly string[],
    private readonly failoverDelayMs: number,
    private readonly fullSyncDelayMs: number,
    private readonly sentinel: Rng,
    private readonly observations?: Observations,
    scripts?: NodeScripts,
  ) {
    this.nodes = zones.map((z) => new SimNode(nodeName('primary-replica', zones, z), z, kernel, scripts));
    this.primary = this.nodes[0]!;
    for (const n of this.nodes) {
      this.applied.set(n, 0);
      this.acked.set(n, 0);
      this.backlog.set(n, []);
    }
  }

  /** The nodes that follow the primary (a stale old primary follows nobody). */
  private replicas(): SimNode[] {
    return this.nodes.filter((n) => n !== this.primary && n !== this.stale);
  }

  private target(conn: Connection): SimNode {
    if (conn.role === 'nonQuorum') {
      const local = this.nodes.find((n) => n !== this.primary && n.zone === conn.nodeZone && n.up);
      if (local) return local;
      return this.primary;
    }
    const held = this.served.get(conn);
    return held !== undefined && held === this.stale ? held : this.primary;
  }

  handle(conn: Connection, op: StoreOp, reply: (r: NodeReply) => void): void {
    const target = this.target(conn);
    const back = (r: NodeReply) => this.network.send(target.zone, conn.zone, this.network.latency(), () => reply(r));
    this.network.send(conn.zone, target.zone, this.network.latency(), () => {
      if (!target.up) {
        this.observations?.emit('refused', { node: target.name });
        return back(REFUSED);
      }
      if (conn.role === 'quorum' && target === this.primary) this.served.set(conn, target);
      // No replica follows a stale primary: WAIT counts none.
      if (op.kind === 'wait' && target === this.stale) return this.kernel.quietAfter(op.timeoutMs, () => back({ ok: true, value: 0 }));
      if (op.kind === 'wait') return this.wait(op.replicas, op.timeoutMs, (n) => back({ ok: true, value: n }));
      if (target !== this.primary && target !== this.stale && isWrite(op)) {
        return back({ ok: false, error: "READONLY You can't write against a read only replica." });
      }
      const r = target.apply(op);
      // Keys the primary evicted before running it (maxmemory with an allkeys policy) go to the replicas as DEL.
      if (target === this.primary) {
        const evicted = target.keyspace.takeEvicted();
        if (evicted.length > 0) this.replicate({ kind: 'cmd', cmd: 'del', args: evicted });
      }
      // Redis (≥ 5 by default, 7 always) replicates a script by its effects, not by running it again.
      if (target === this.primary && isWrite(op)) this.replicate(op.kind === 'script' ? { kind: 'effects', entries: target.keyspace.snapshot(op.keys) } : op);
      back(r);
    });
  }

  private replicate(op: StoreOp): void {
    this.offset++;
    this.applied.set(this.primary, this.offset);
    for (const replica of this.replicas()) {
      this.backlog.get(replica)!.push({ offset: this.offset, op });
      this.pump(replica);
    }
  }

  /** Streams the replica's backlog in order while the link is up. */
  private pump(replica: SimNode): void {
    const queue = this.backlog.get(replica)!;
    const epoch = this.epoch;
    if (queue.length > 0 && !this.network.canSend(this.primary.zone, replica.zone)) {
      this.observations?.emit('dropped', { from: this.primary.zone, to: replica.zone });
    }
    while (queue.length > 0 && this.network.canSend(this.primary.zone, replica.zone) && this.primary.up && !this.fullSyncs.has(replica)) {
      const { offset, op } = queue.shift()!;
      const arrival = Math.max(this.kernel.now + this.network.replicationLag(), this.linkClock.get(replica) ?? 0);
      this.linkClock.set(replica, arrival);
      const link = this.links.get(replica) ?? 0;
      this.kernel.quietAt(arrival, () => {
        if (this.epoch !== epoch || !replica.up || (this.links.get(replica) ?? 0) !== link) return;
        replica.applyReplicated(op);
        this.applied.set(replica, offset);
        this.network.send(replica.zone, this.primary.zone, this.network.latency(), () => {
          if (this.epoch !== epoch) return;
          this.acked.set(replica, Math.max(this.acked.get(replica)!, offset));
          this.checkWaiters();
        });
      });
    }
  }

  private wait(replicas: number, timeoutMs: number, done: (count: number) => void): void {
    const waiter: Waiter = { offset: this.offset, replicas, done };
    if (this.count(waiter.offset) >= replicas) return done(this.count(waiter.offset));
    this.waiters.push(waiter);
    this.kernel.quietAfter(timeoutMs, () => {
      if (!this.waiters.includes(waiter)) return;
      this.waiters = this.waiters.filter((w) => w !== waiter);
      done(this.count(waiter.offset));
    });
  }

  private count(offset: number): number {
    return this.replicas().filter((r) => !this.fullSyncs.has(r) && (this.acked.get(r) ?? 0) >= offset).length;
  }

  private checkWaiters(): void {
    for (const w of [...this.waiters]) {
      if (this.count(w.offset) >= w.replicas) {
        this.waiters = this.waiters.filter((x) => x !== w);
        w.done(this.count(w.offset));
      }
    }
  }

  /** Called by the run loop after partitions heal, so that replicas catch up. */
  resume(): void {
    for (const r of this.replicas()) this.pump(r);
  }

  crash(node: SimNode, loseUnreplicated: boolean): void {
    node.up = false;
    this.newLink(node);
    // Its clients reconnect to whatever Sentinel names when they next call.
    for (const [conn, n] of this.served) if (n === node) this.served.delete(conn);
    if (node === this.stale) this.stale = null;
    if (node === this.primary) {
      if (loseUnreplicated) {
        // Writes still in the replication stream die with the primary.
        const unsent = Math.max(0, ...this.replicas().map((r) => this.offset - this.applied.get(r)!));
        if (unsent > 0) this.observations?.emit('lost', { node: node.name, writes: unsent });
        this.epoch++;
        for (const r of this.replicas()) this.backlog.set(r, []);
        node.wipe();
      }
      const since = (this.primaryDownSince = this.kernel.now);
      // Only the outage that began now can start this failover (not an earlier, healed one).
      this.kernel.after(this.failoverDelayMs, () => this.startFailover(node, since));
    } else if (loseUnreplicated) {
      node.wipe();
      // It holds nothing now: a failover must not take it for a replica that has the data.
      this.applied.set(node, 0);
    }
  }

  /**
   * Sentinel's failover of `old`, down since `since` (still down now): a replica is chosen within
   * SENTINEL_CHOICE_WITHIN_MS and promoted SENTINEL_PROMOTION_MS after the start, whether or not the
   * old primary came back meanwhile; if the chosen replica died first (or none was up) the failover
   * fails, and another starts twice the failover timeout after this one if `old` is still down.
   */
  private startFailover(old: SimNode, since: number): void {
    if (this.primary !== old || old.up || this.primaryDownSince !== since) return;
    const started = this.kernel.now;
    const again = () =>
      this.kernel.at(started + 2 * SENTINEL_FAILOVER_TIMEOUT_MS, () => this.startFailover(old, since));
    this.kernel.after(this.sentinel.int(0, SENTINEL_CHOICE_WITHIN_MS - 1), () => {
      if (this.primary !== old) return;
      const chosen = this.choose();
      if (chosen === null) return again();
      this.kernel.at(started + SENTINEL_PROMOTION_MS, () => {
        if (this.primary !== old) return;
        if (chosen.up) this.failover(chosen);
        else again();
      });
    });
  }

  /** The up replica that applied the most; among equals, one at random (Sentinel's run-id tie-break). */
  private choose(): SimNode | null {
    const up = this.replicas().filter((r) => r.up);
    if (up.length === 0) return null;
    const most = Math.max(...up.map((r) => this.applied.get(r)!));
    return this.sentinel.pick(up.filter((r) => this.applied.get(r) === most));
  }

  /** Sentinel promotes `promoted` (an up replica). */
  failover(promoted: SimNode): void {
    const old = this.primary;
    this.primaryDownSince = null;
    const lost = this.offset - this.applied.get(promoted)!;
    if (lost > 0) this.observations?.emit('lost', { node: this.primary.name, writes: lost });
    this.observations?.emit('promoted', { node: promoted.name });
    this.epoch++;
    this.primary = promoted;
    this.offset = this.applied.get(promoted)!;
    for (const n of this.nodes) {
      this.backlog.set(n, []);
      this.linkClock.delete(n);
      // An old primary already back keeps its role and its clients until Sentinel demotes it.
      if (n !== promoted && n.up) {
        if (n === old) this.keepStale(old);
        else this.resync(n);
      }
    }
    // Pending WAITs belonged to the old primary: answer them with what they had.
    for (const w of this.waiters.splice(0)) w.done(0);
  }

  /**
   * `old` came back before the promotion: it stays a primary for the connections it served until
   * Sentinel demotes it, then resyncs in full (it has a history of its own since its restart) and
   * its clients, their connections closed, reach the new primary.
   */
  private keepStale(old: SimNode): void {
    this.stale = old;
    this.kernel.after(SENTINEL_DEMOTION_MS, () => {
      if (this.stale !== old) return;
      this.stale = null;
      for (const [conn, n] of this.served) {
        if (n !== old) continue;
        this.served.delete(conn);
        // Calls in flight fail as on a node that died: they may have run.
        conn.close?.(NODE_DIED_ERROR);
      }
      // A primary down now resyncs it when it is back or replaced (restart, failover).
      if (this.primary.up) this.fullSync(old);
    });
  }

  private newLink(replica: SimNode): void {
    this.links.set(replica, (this.links.get(replica) ?? 0) + 1);
  }

  private resync(replica: SimNode): void {
    this.fullSyncs.delete(replica);
    replica.resyncFrom(this.primary);
    this.applied.set(replica, this.offset);
    this.acked.set(replica, this.offset);
  }

  /**
   * A replica that must resynchronise in full (it or its primary restarted): the primary waits
   * fullSyncDelayMs for more replicas before it streams its data set, and the replica takes
   * nothing from the stream until then (the primary keeps it for after the transfer).
   */
  private fullSync(replica: SimNode): void {
    const serial = ++this.fullSyncSerial;
    this.fullSyncs.set(replica, serial);
    this.newLink(replica);
    this.backlog.set(replica, []);
    this.linkClock.delete(replica);
    this.observations?.emit('full-sync', { node: replica.name, primary: this.primary.name });
    const primary = this.primary;
    this.kernel.after(this.fullSyncDelayMs, () => {
      if (this.fullSyncs.get(replica) !== serial) return;
      // A primary that went down or was replaced meanwhile starts the sync again when it is back.
      if (!replica.up || this.primary !== primary || !primary.up) return;
      this.resync(replica);
      this.observations?.emit('resynced', { node: replica.name });
      this.checkWaiters();
    });
  }

  restart(node: SimNode): void {
    node.up = true;
    if (node === this.primary) this.primaryDownSince = null;
    // A replica cannot sync from a primary that is down: it serves what it has until the primary
    // returns or a failover gives it another (both resync every replica that is up).
    if (node !== this.primary) {
      if (this.primary.up) this.fullSync(node);
    } else for (const r of this.replicas()) if (r.up) this.fullSync(r);
  }

  /**
   * Brings every node back, but a primary that is down comes back only once its failover has had
   * its chance (as an operator who lets Sentinel act would): replicas first, the old primary then
   * rejoins as a replica of whoever was promoted.
   */
  recoverAll(): void {
    for (const n of this.replicas()) if (!n.up && !this.keptDown.has(`node:${n.zone}`)) this.restart(n);
    const down = this.primary;
    // A primary kept down is restarted by its own heal.
    const waits = down.up || this.keptDown.has(`node:${down.zone}`);
    if (!waits && this.primaryDownSince !== null) {
      // After the promotion its failover would make (scheduled before this, so it runs first).
      this.kernel.at(this.primaryDownSince + this.failoverDelayMs + SENTINEL_PROMOTION_MS, () =>
        this.kernel.after(0, () => {
          if (!down.up) this.restart(down);
          this.resume();
        }),
      );
    } else if (!waits) this.restart(down);
    this.resume();
  }
}
