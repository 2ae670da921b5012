import type { Connection } from '../store/connection.js';
import type { Kernel } from '../kernel/kernel.js';
import type { Network } from '../kernel/network.js';
import type { Observations } from '../kernel/observations.js';
import { Rng } from '../kernel/rng.js';
import { SimNode, type NodeScripts } from '../store/sim-node.js';
import { isWrite, type NodeReply, type StoreOp } from '../store/store-op.js';
import { DATASTORE_TIMEOUT_MS, DynomiteBackend } from './dynomite-backend.js';
import { nodeName } from './node-name.js';
import { PausableProcess, type Source } from './pausable-process.js';
import { PeerLink } from './peer-link.js';
import { REFUSED, type Topology } from '../store/topology.js';

/** Dynomite's peer timeouts (DYNOMITE.md "Failures and repair"): reads `timeout` + 200 ms, writes 25.2 s. */
const PEER_READ_TIMEOUT_MS = DATASTORE_TIMEOUT_MS + 200;
const PEER_WRITE_TIMEOUT_MS = 25_200;

/**
 * How often a Dynomite tries again to connect to a dead peer (from when the peer died). A restarted
 * node's own writes reach its peers at once, but its peers' writes reach it only from their next try
 * (DYNOMITE.md "Heals take time"; measured on the real build: from 1.0 s, 2.0 s or 3.0 s after the kill).
 */
export const PEER_RETRY_MS = 1_000;

/**
 * The share of quorum requests whose coordinator's own reply reaches the vote before its peers'. When
 * no two replies agree the first good one is returned, so this is the share of such ties the local
 * replica wins (DYNOMITE.md "Who wins a tie"): a busy coordinator handles a peer's reply first. Measured
 * on the real build with three different values: 940 of 1,000 GETs pooled over loads (598/600 on a quiet
 * machine, 146/200 issued 20 at a time on a loaded one; test/conformance/dynomite-real.test.ts). On
 * loopback; with the lan latency and lag on the peer links the local reply won every tie (DYNOMITE.md),
 * so on lan this share gives stale peers more ties than a real cluster there would: not modelled yet.
 */
export const LOCAL_REPLY_FIRST_SHARE = 0.94;

/** The processes of one rack: its Dynomite (the node the clients and peers talk to) and its redis. */
interface Rack {
  readonly dynomite: PausableProcess;
  readonly backend: DynomiteBackend;
  /** Bumped when its Dynomite dies: what the dead process was waiting for (replies, timeouts) is never answered. */
  incarnation: number;
  /** Until when its peers' links to a restarted Dynomite are not up yet (their next try: PEER_RETRY_MS). */
  peersFrom: number;
  /** When its Dynomite died (its peers' tries to reconnect count from here). */
  diedAt: number;
}

/**
 * Dynomite: one full replica per zone, every node a master. A client talks to its zone's node.
 * DC_ONE answers with the local reply and replicates without waiting; DC_QUORUM and DC_SAFE_QUORUM
 * send to every rack and vote on the replies (ReplyVote). Replicas re-execute scripts on their own
 * state and clock.
 *
 * Each rack is two processes that fail separately (DYNOMITE.md "Failures and repair"): the Dynomite
 * node (`SimNode.up`: down means connections are refused, as a crashed node's; `dynomite` paused: what
 * reaches it waits, in order, and runs when it resumes) and its redis (`DynomiteBackend`: dead means
 * storage errors while the node still forwards writes to its peers; paused means commands run late,
 * and past the 5 s datastore timeout Dynomite closes the connection and drops what was queued behind
 * the timed-out request). A coordinator times out a peer request after 5.2 s (reads) or 25.2 s
 * (writes) and closes that peer link; writes it issues while the link is closed and the peer still
 * paused are dropped (PeerLink). The copies of one request leave together: one replication lag per
 * request, each copy adding its link's latency; a copy that left arrives even if the coordinator
 * dies meanwhile (DYNOMITE.md "Ordering"). Heals take time: a restarted node's peers reach it at their
 * next reconnect try (PEER_RETRY_MS), a restarted redis is served at Dynomite's next try
 * (datastoreRetryAfter). A resumed node works through one connection's backlog after another
 * (PausableProcess). In a quorum vote the local reply comes first only in LOCAL_REPLY_FIRST_SHARE.
 *
 * Where Dynomite's real behaviour is uncertain, the model takes the more adversarial choice:
 * writes from different coordinators reach peers in different orders with no conflict resolution
 * (replicas may diverge for good); replication to a node that is down or across a partition is
 * dropped, not handed off later; a node restarted after losing its data comes back empty and
 * nothing repairs it; a read that times out closes the peer link too (one connection carries both),
 * so later writes to a still-paused peer are dropped from 5.2 s on when quorum reads are flowing; a
 * closed link reopens only once the peer runs again; a peer answers a coordinator that is paused
 * only when the coordinator resumes; a Dynomite that died answers nothing it was waiting for, even
 * after it restarts (its clients time out: unknown outcomes); after a datastore timeout the connection
 * to a paused redis reopens only once it runs again (DynomiteBackend).
 */
export class DynomiteTopology implements Topology {
  readonly kind = 'dynomite' as const;
  readonly nodes: SimNode[];
  private readonly racks = new Map<SimNode, Rack>();
  readonly keptDown = new Set<string>();
  /** Each node's open links, by peer (a crashed node's are dropped: it reconnects afresh). */
  private readonly links = new Map<SimNode, Map<SimNode, PeerLink>>();

  constructor(
    private readonly kernel: Kernel,
    private readonly network: Network,
    zones: readonly string[],
    private readonly observations?: Observations,
    /** Draws, per quorum request, whether the local reply reaches the vote first (LOCAL_REPLY_FIRST_SHARE). */
    private readonly voteOrder: Rng = new Rng('dynomite', 'vote-order'),
    scripts?: NodeScripts,
  ) {
    this.nodes = zones.map((z) => new SimNode(nodeName('dynomite', zones, z), z, kernel, scripts));
    for (const n of this.nodes) {
      const dynomite = new PausableProcess(kernel, () => observations?.emit('held', { node: n.name, process: 'dynomite' }));
      this.racks.set(n, { dynomite, backend: new DynomiteBackend(kernel, n, observations), incarnation: 0, peersFrom: 0, diedAt: 0 });
    }
  }

  private node(zone: string): SimNode {
    return this.nodes.find((n) => n.zone === zone)!;
  }

  private rack(node: SimNode): Rack {
    return this.racks.get(node)!;
  }

  /** Runs `fn` in `node`'s Dynomite process: now, or when it resumes from a pause (in `source`'s turn: the connection it came in on). */
  private inDynomite(node: SimNode, fn: () => void, source?: Source): void {
    this.rack(node).dynomite.run(fn, source);
  }

  /**
   * Runs `fn` in `node`'s Dynomite process if it is still the incarnation that was alive when the
   * work began: a process that died since (restarted or not) has lost its connections and answers nothing.
   */
  private inLiveDynomite(node: SimNode, incarnation: number, fn: () => void, source?: Source): void {
    this.inDynomite(
      node,
      () => {
        if (this.alive(node, incarnation)) fn();
      },
      source,
    );
  }

  /** `node`'s Dynomite is up and is still the process (incarnation) that the work began in. */
  private alive(node: SimNode, incarnation: number): boolean {
    return node.up && this.rack(node).incarnation === incarnation;
  }

  /** Runs `op` on `node`'s redis; the reply is handled in its Dynomite process (at once when both are healthy). */
  private execute(node: SimNode, op: StoreOp, reply: (r: NodeReply) => void): void {
    const rack = this.rack(node);
    const incarnation = rack.incarnation;
    rack.backend.execute(op, (r) => {
      // inLiveDynomite without its closure when the Dynomite process is free (nearly always): the same, sooner.
      if (rack.dynomite.busy) return this.inLiveDynomite(node, incarnation, () => reply(r), rack.backend);
      if (this.alive(node, incarnation)) reply(r);
    });
  }

  handle(conn: Connection, op: StoreOp, reply: (r: NodeReply) => void): void {
    const target = this.node(conn.nodeZone);
    const send = (r: NodeReply) => this.network.send(target.zone, conn.zone, this.network.latency(), () => reply(r));
    this.network.send(conn.zone, target.zone, this.network.latency(), () =>
      this.inDynomite(target, () => {
        if (!target.up) {
          // The connection is refused by the host, not answered by the dead process.
          this.observations?.emit('refused', { node: target.name });
          return send(REFUSED);
        }
        const incarnation = this.rack(target).incarnation;
        const back = (r: NodeReply) => {
          if (this.alive(target, incarnation)) send(r);
        };
        const unsupported = closesConnection(op);
        if (unsupported) {
          // No reply: the connection is closed and everything in flight on it fails (DYNOMITE.md).
          return this.network.send(target.zone, conn.zone, this.network.latency(), () =>
            conn.close?.(`ECONNRESET Dynomite closed the connection (unsupported: ${unsupported})`),
          );
        }
        // Scripts run on every replica at every level (DYNOMITE.md "Scripts"), read-only ones too.
        const everywhere = isWrite(op) || op.kind === 'script';
        const peers = this.nodes.filter((n) => n !== target);
        if (conn.consistency === 'DC_ONE') {
          // Writes go to every rack at once; peer replies and errors are swallowed; the reply is the
          // local one — an error when the local redis is dead or stalled, after the peers got the write.
          let local: NodeReply | null = null;
          let forwarded = false;
          this.execute(target, op, (r) => (forwarded ? back(r) : (local = r)));
          if (everywhere && peers.length > 0) {
            const lag = this.network.requestLag();
            for (const peer of peers) this.forward(target, peer, op, lag, () => undefined);
          }
          forwarded = true;
          if (local) back(local);
          return;
        }
        const vote = new ReplyVote(conn.consistency, this.nodes.length, back);
        // The local reply, when it is not first, joins the vote right after the first peer's.
        let localLate = peers.length > 0 && !this.voteOrder.chance(LOCAL_REPLY_FIRST_SHARE);
        let heldLocal: NodeReply | null = null;
        this.execute(target, op, (r) => (localLate ? (heldLocal = r) : vote.arrive(r)));
        const fromPeer = (r: NodeReply) => {
          vote.arrive(r);
          if (!localLate) return;
          localLate = false;
          if (heldLocal) vote.arrive(heldLocal);
        };
        const lag = everywhere && peers.length > 0 ? this.network.requestLag() : 0;
        for (const peer of peers) {
          if (everywhere) this.forward(target, peer, op, lag, fromPeer);
          else this.readAt(target, peer, op, fromPeer);
        }
      }, conn),
    );
  }

  private link(from: SimNode, to: SimNode): PeerLink {
    let mine = this.links.get(from);
    if (!mine) this.links.set(from, (mine = new Map()));
    let link = mine.get(to);
    if (!link) {
      const incarnation = this.rack(from).incarnation;
      link = new PeerLink(
        this.kernel,
        (fn) => this.inLiveDynomite(from, incarnation, fn),
        () => this.observations?.emit('link-timeout', { from: from.name, to: to.name }),
      );
      mine.set(to, link);
    }
    return link;
  }

  /** False (and the request is dropped) while the link has timed out and the peer is still paused. */
  private linkUsable(from: SimNode, to: SimNode, link: PeerLink): boolean {
    if (!link.closed) return true;
    if (this.rack(to).dynomite.paused) {
      this.observations?.emit('link-dropped', { from: from.name, to: to.name });
      return false;
    }
    link.closed = false;
    return true;
  }

  /**
   * Replicates a write to a peer; the peer re-executes it and acks to the coordinator. `sharedLag` is
   * the request's replication lag, drawn once for all its copies (Network.requestLag): the copies leave
   * together, each then takes its link's latency. A copy handed to the peer connection is in the
   * kernel's socket buffer: it arrives even if the coordinator dies meanwhile (DYNOMITE.md "Ordering":
   * the two survivors of a killed node had received the same writes in 16/16 runs).
   */
  private forward(from: SimNode, to: SimNode, op: StoreOp, sharedLag: number, ack: (r: NodeReply) => void): void {
    if (this.reconnecting(from, to)) return ack(PEER_DOWN);
    const link = this.link(from, to);
    if (!this.linkUsable(from, to, link)) return ack(PEER_TIMED_OUT);
    const arrival = Math.max(this.kernel.now + this.network.copyLag(sharedLag), link.lastArrival);
    link.lastArrival = arrival;
    const incarnation = this.rack(from).incarnation;
    const counts = link.track(PEER_WRITE_TIMEOUT_MS, () => ack(PEER_TIMED_OUT));
    const answer = (r: NodeReply) =>
      this.network.send(to.zone, from.zone, this.network.latency(), () => this.inLiveDynomite(from, incarnation, () => counts() && ack(r), link));
    // Across a partition the write is dropped and the peer never answers: the link times out.
    this.network.send(from.zone, to.zone, arrival - this.kernel.now, () =>
      this.inDynomite(to, () => {
        // A dead peer's connection is refused: an error reply, which does not vote.
        if (!to.up) return answer(PEER_DOWN);
        this.execute(to, op, answer);
      }, link),
    );
  }

  /** `to` restarted and `from` has not reconnected to it yet: the request does not reach it. */
  private reconnecting(from: SimNode, to: SimNode): boolean {
    if (this.kernel.now >= this.rack(to).peersFrom) return false;
    this.observations?.emit('peer-reconnecting', { from: from.name, to: to.name });
    return true;
  }

  private readAt(from: SimNode, to: SimNode, op: StoreOp, answer: (r: NodeReply) => void): void {
    if (this.reconnecting(from, to)) return answer(PEER_DOWN);
    const link = this.link(from, to);
    if (!this.linkUsable(from, to, link)) return answer(PEER_TIMED_OUT);
    const incarnation = this.rack(from).incarnation;
    const counts = link.track(PEER_READ_TIMEOUT_MS, () => answer(PEER_TIMED_OUT));
    const respond = (r: NodeReply) =>
      this.network.send(to.zone, from.zone, this.network.latency(), () => this.inLiveDynomite(from, incarnation, () => counts() && answer(r), link));
    this.network.send(from.zone, to.zone, this.network.latency(), () =>
      this.inDynomite(to, () => {
        if (!to.up) return respond(PEER_DOWN);
        this.execute(to, op, respond);
      }, link),
    );
  }

  /** Every client connection, idle ones included: each hears of its node's death (DYNOMITE.md "Clients"). */
  private readonly clients = new Set<Connection>();

  attach(conn: Connection): void {
    this.clients.add(conn);
  }

  crash(node: SimNode, loseUnreplicated: boolean): void {
    if (node.up) this.rack(node).diedAt = this.kernel.now;
    node.up = false;
    for (const conn of this.clients) if (conn.nodeZone === node.zone) conn.nodeDied?.();
    // Its connections die with it: a restarted process opens fresh peer links. What it had already
    // handed to them still arrives (forward); it answers nothing more.
    this.rack(node).incarnation++;
    this.links.delete(node);
    if (!loseUnreplicated) return;
    // Without persistence it restarts empty.
    node.generation++;
    this.observations?.emit('lost', { node: node.name, writes: node.keyspace.keyCount });
    node.wipe();
  }

  /** The node answers again; its peers reach it from their next try to reconnect (PEER_RETRY_MS). */
  restart(node: SimNode): void {
    if (node.up) return;
    node.up = true;
    const rack = this.rack(node);
    rack.peersFrom = rack.diedAt + Math.max(1, Math.ceil((this.kernel.now - rack.diedAt) / PEER_RETRY_MS)) * PEER_RETRY_MS;
  }

  /** Replication dropped during a partition is gone: nothing to resume. */
  resume(): void {}

  recoverAll(): void {
    for (const n of this.nodes) if (!this.keptDown.has(`node:${n.zone}`)) this.restart(n);
  }

  /** The node's redis dies; with `loseData` it comes back empty (no persistence). */
  crashBackend(node: SimNode, loseData: boolean): void {
    this.rack(node).backend.crash(loseData);
  }

  restartBackend(node: SimNode): void {
    this.rack(node).backend.restart();
  }

  backendUp(node: SimNode): boolean {
    return this.rack(node).backend.up;
  }

  /** Every redis back up (the liveness phase). */
  restartAllBackends(): void {
    for (const [n, r] of this.racks) if (!this.keptDown.has(`backend:${n.zone}`)) r.backend.restart();
  }

  /** Pauses the node's Dynomite process or its redis until `until` (true time). */
  pause(node: SimNode, process: 'dynomite' | 'redis', until: number): void {
    const rack = this.rack(node);
    (process === 'dynomite' ? rack.dynomite : rack.backend.process).pause(until);
  }

  /** Every paused process resumes now (the liveness phase). */
  resumeAll(): void {
    for (const r of this.racks.values()) {
      r.dynomite.resume();
      r.backend.process.resume();
    }
  }
}

/** Commands Dynomite closes the client connection on (measured; PING/INFO are answered locally). */
const CLOSING_COMMANDS = new Set(['time', 'wait', 'client', 'select', 'echo', 'multi', 'dbsize', 'hello', 'command', 'zpopmin', 'hstrlen']);

/** The command of `op` when Dynomite would close the connection on it (WAIT, TIME, multi-field HSET, a 0-key script …). */
function closesConnection(op: StoreOp): string | null {
  if (op.kind === 'wait') return 'WAIT';
  if (op.kind === 'script') return op.keys.length === 0 ? 'EVAL with no key' : null;
  if (op.kind !== 'cmd') return null;
  const cmd = op.cmd.toLowerCase();
  if (CLOSING_COMMANDS.has(cmd)) return cmd.toUpperCase();
  if (cmd === 'hset' && op.args.length > 3) return 'HSET with several fields';
  return null;
}

const PEER_DOWN: NodeReply = { ok: false, error: 'ERR Dynomite: peer connection refused' };
/** A peer request that outlived its timeout, or was dropped on a timed-out link (`-ERR Peer: …`, source). */
const PEER_TIMED_OUT: NodeReply = { ok: false, error: 'ERR Peer: Connection timed out' };
export const QUORUM_FAILED = 'ERR Dynomite: Failed to achieve Quorum';

/**
 * Dynomite's quorum reply (DYNOMITE.md "Replies under quorum"; dyn_response_mgr.c): replies are
 * compared by content in arrival order and the first two that agree are returned; the coordinator's
 * own reply has no priority; error replies do not vote. As soon as too few good replies can still
 * come to make a quorum, the first error is returned (rspmgr_check_is_done: "no quorum possible") —
 * so one good reply and two errors is an error, although the write ran where it was good. When every
 * replica answered, enough were good and no two agree, DC_QUORUM returns the first good reply to arrive
 * and DC_SAFE_QUORUM `ERR Dynomite: Failed to achieve Quorum` (the write has been applied everywhere).
 */
export class ReplyVote {
  private readonly arrived: NodeReply[] = [];
  private answered = false;

  constructor(
    private readonly level: 'DC_QUORUM' | 'DC_SAFE_QUORUM',
    private readonly replicas: number,
    private readonly answer: (r: NodeReply) => void,
  ) {}

  arrive(r: NodeReply): void {
    if (this.answered) return;
    this.arrived.push(r);
    const quorum = Math.floor(this.replicas / 2) + 1;
    let agreeing = 0;
    let good = 0;
    for (const x of this.arrived) {
      if (!x.ok) continue;
      good++;
      if (r.ok && sameContent(x.value, r.value)) agreeing++;
    }
    if (r.ok && agreeing >= quorum) return this.decide(r);
    const pending = this.replicas - this.arrived.length;
    if (good + pending < quorum) return this.decide(this.arrived.find((x) => !x.ok)!);
    if (pending > 0) return;
    if (this.level === 'DC_SAFE_QUORUM') return this.decide({ ok: false, error: QUORUM_FAILED });
    this.decide(this.arrived.find((x) => x.ok)!);
  }

  private decide(r: NodeReply): void {
    this.answered = true;
    this.answer(r);
  }
}

/**
 * Whether two replies have the same content, as the vote compares them: `JSON.stringify(a) ===
 * JSON.stringify(b)` without serializing either (every arrival is compared with the ones before it).
 * Exact for replies (strings, numbers, null, arrays of them, at any depth); a bare `undefined`, which no
 * reply is, counts as null here where JSON would leave it out.
 */
export function sameContent(a: unknown, b: unknown): boolean {
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!sameContent(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  return asJsonScalar(a) === asJsonScalar(b);
}

/** What JSON makes of a scalar inside an array: a number that is not finite and undefined are null. */
function asJsonScalar(x: unknown): unknown {
  return x === undefined || (typeof x === 'number' && !Number.isFinite(x)) ? null : x;
}
