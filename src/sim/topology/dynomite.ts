import type { Connection } from '../connection.js';
import type { Kernel } from '../kernel.js';
import type { Network } from '../network.js';
import type { Observations } from '../observations.js';
import { isWrite, SimNode, type NodeReply, type StoreOp } from '../sim-node.js';
import { DATASTORE_TIMEOUT_MS, DynomiteBackend } from './dynomite-backend.js';
import { nodeName } from './node-name.js';
import { PausableProcess } from './pausable-process.js';
import { PeerLink } from './peer-link.js';
import { REFUSED, type Topology } from './topology.js';

/** Dynomite's peer timeouts (DYNOMITE.md "Failures and repair"): reads `timeout` + 200 ms, writes 25.2 s. */
export const PEER_READ_TIMEOUT_MS = DATASTORE_TIMEOUT_MS + 200;
export const PEER_WRITE_TIMEOUT_MS = 25_200;

/** The processes of one rack: its Dynomite (the node the clients and peers talk to) and its redis. */
interface Rack {
  readonly dynomite: PausableProcess;
  readonly backend: DynomiteBackend;
  /** Bumped when its Dynomite dies: what the dead process was waiting for (replies, timeouts) is never answered. */
  incarnation: number;
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
 * dies meanwhile (DYNOMITE.md "Ordering").
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
  /** Each node's open links, by peer (a crashed node's are dropped: it reconnects afresh). */
  private readonly links = new Map<SimNode, Map<SimNode, PeerLink>>();

  constructor(
    private readonly kernel: Kernel,
    private readonly network: Network,
    zones: readonly string[],
    private readonly observations?: Observations,
  ) {
    this.nodes = zones.map((z) => new SimNode(nodeName('dynomite', zones, z), z, kernel));
    for (const n of this.nodes) {
      const dynomite = new PausableProcess(kernel, () => observations?.emit('held', { node: n.name, process: 'dynomite' }));
      this.racks.set(n, { dynomite, backend: new DynomiteBackend(kernel, n, observations), incarnation: 0 });
    }
  }

  private node(zone: string): SimNode {
    return this.nodes.find((n) => n.zone === zone)!;
  }

  private rack(node: SimNode): Rack {
    return this.racks.get(node)!;
  }

  /** Runs `fn` in `node`'s Dynomite process: now, or when it resumes from a pause. */
  private inDynomite(node: SimNode, fn: () => void): void {
    this.rack(node).dynomite.run(fn);
  }

  /**
   * Runs `fn` in `node`'s Dynomite process if it is still the incarnation that was alive when the
   * work began: a process that died since (restarted or not) has lost its connections and answers nothing.
   */
  private inLiveDynomite(node: SimNode, incarnation: number, fn: () => void): void {
    this.inDynomite(node, () => {
      if (this.alive(node, incarnation)) fn();
    });
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
      if (rack.dynomite.busy) return this.inLiveDynomite(node, incarnation, () => reply(r));
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
        this.execute(target, op, (r) => vote.arrive(r));
        const lag = everywhere && peers.length > 0 ? this.network.requestLag() : 0;
        for (const peer of peers) {
          if (everywhere) this.forward(target, peer, op, lag, (r) => vote.arrive(r));
          else this.readAt(target, peer, op, (r) => vote.arrive(r));
        }
      }),
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
    const link = this.link(from, to);
    if (!this.linkUsable(from, to, link)) return ack(PEER_TIMED_OUT);
    const arrival = Math.max(this.kernel.now + this.network.copyLag(sharedLag), link.lastArrival);
    link.lastArrival = arrival;
    const incarnation = this.rack(from).incarnation;
    const counts = link.track(PEER_WRITE_TIMEOUT_MS, () => ack(PEER_TIMED_OUT));
    const answer = (r: NodeReply) =>
      this.network.send(to.zone, from.zone, this.network.latency(), () => this.inLiveDynomite(from, incarnation, () => counts() && ack(r)));
    // Across a partition the write is dropped and the peer never answers: the link times out.
    this.network.send(from.zone, to.zone, arrival - this.kernel.now, () =>
      this.inDynomite(to, () => {
        // A dead peer's connection is refused: an error reply, which does not vote.
        if (!to.up) return answer(PEER_DOWN);
        this.execute(to, op, answer);
      }),
    );
  }

  private readAt(from: SimNode, to: SimNode, op: StoreOp, answer: (r: NodeReply) => void): void {
    const link = this.link(from, to);
    if (!this.linkUsable(from, to, link)) return answer(PEER_TIMED_OUT);
    const incarnation = this.rack(from).incarnation;
    const counts = link.track(PEER_READ_TIMEOUT_MS, () => answer(PEER_TIMED_OUT));
    const respond = (r: NodeReply) =>
      this.network.send(to.zone, from.zone, this.network.latency(), () => this.inLiveDynomite(from, incarnation, () => counts() && answer(r)));
    this.network.send(from.zone, to.zone, this.network.latency(), () =>
      this.inDynomite(to, () => {
        if (!to.up) return respond(PEER_DOWN);
        this.execute(to, op, respond);
      }),
    );
  }

  /** Every client connection, idle ones included: each hears of its node's death (DYNOMITE.md "Clients"). */
  private readonly clients = new Set<Connection>();

  attach(conn: Connection): void {
    this.clients.add(conn);
  }

  crash(node: SimNode, loseUnreplicated: boolean): void {
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

  restart(node: SimNode): void {
    node.up = true;
  }

  /** Replication dropped during a partition is gone: nothing to resume. */
  resume(): void {}

  recoverAll(): void {
    for (const n of this.nodes) n.up = true;
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
    for (const r of this.racks.values()) r.backend.restart();
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
export function closesConnection(op: StoreOp): string | null {
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
export const PEER_TIMED_OUT: NodeReply = { ok: false, error: 'ERR Peer: Connection timed out' };
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
