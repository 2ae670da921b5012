import type { Connection } from '../connection.js';
import type { Kernel } from '../kernel.js';
import type { Network } from '../network.js';
import type { Observations } from '../observations.js';
import { isWrite, SimNode, type NodeReply, type StoreOp } from '../sim-node.js';
import { nodeName } from './node-name.js';
import { REFUSED, type Topology } from './topology.js';

/**
 * Dynomite: one full replica per zone, every node a master. A client talks to its zone's node.
 * DC_ONE answers after the local apply and replicates later; DC_QUORUM answers after a majority
 * applied; DC_SAFE_QUORUM answers only when a majority applied and returned the same result, else
 * an error. Replicas re-execute scripts on their own state and clock.
 *
 * Where Dynomite's real behaviour is uncertain, the model takes the more adversarial choice:
 * writes from different coordinators reach peers in different orders with no conflict resolution
 * (replicas may diverge for good); replication to a node that is down or across a partition is
 * dropped, not handed off later; a node restarted after losing its data comes back empty and
 * nothing repairs it.
 */
export class DynomiteTopology implements Topology {
  readonly kind = 'dynomite' as const;
  readonly nodes: SimNode[];
  /** Per-link FIFO: a replicated write never overtakes an earlier one on the same link. */
  private readonly linkClock = new Map<string, number>();

  constructor(
    private readonly kernel: Kernel,
    private readonly network: Network,
    zones: readonly string[],
    private readonly observations?: Observations,
  ) {
    this.nodes = zones.map((z) => new SimNode(nodeName('dynomite', zones, z), z, kernel));
  }

  private node(zone: string): SimNode {
    return this.nodes.find((n) => n.zone === zone)!;
  }

  handle(conn: Connection, op: StoreOp, reply: (r: NodeReply) => void): void {
    const target = this.node(conn.nodeZone);
    const back = (r: NodeReply) => this.network.send(target.zone, conn.zone, this.network.latency(), () => reply(r));
    this.network.send(conn.zone, target.zone, this.network.latency(), () => {
      if (!target.up) {
        this.observations?.emit('refused', { node: target.name });
        return back(REFUSED);
      }
      const unsupported = closesConnection(op);
      if (unsupported) {
        // No reply: the connection is closed and everything in flight on it fails (DYNOMITE.md).
        return this.network.send(target.zone, conn.zone, this.network.latency(), () =>
          conn.close?.(`ECONNRESET Dynomite closed the connection (unsupported: ${unsupported})`),
        );
      }
      const local = target.apply(op);
      // Scripts run on every replica at every level (DYNOMITE.md "Scripts"), read-only ones too.
      const everywhere = isWrite(op) || op.kind === 'script';
      const peers = this.nodes.filter((n) => n !== target);
      if (conn.consistency === 'DC_ONE') {
        // Writes go to every rack at once; peer replies and errors are swallowed; the reply is local.
        if (everywhere) for (const peer of peers) this.forward(target, peer, op, () => undefined);
        return back(local);
      }
      const vote = new ReplyVote(conn.consistency, this.nodes.length, back);
      vote.arrive(local);
      for (const peer of peers) {
        if (everywhere) this.forward(target, peer, op, (r) => vote.arrive(r));
        else this.readAt(target, peer, op, (r) => vote.arrive(r));
      }
    });
  }

  /** Replicates a write to a peer; the peer re-executes it and acks to the coordinator. */
  private forward(from: SimNode, to: SimNode, op: StoreOp, ack: (r: NodeReply) => void): void {
    const link = `${from.name}>${to.name}`;
    const arrival = Math.max(this.kernel.now + this.network.replicationLag(), this.linkClock.get(link) ?? 0);
    this.linkClock.set(link, arrival);
    const generation = from.generation;
    // Across a partition the peer never answers (Dynomite times it out after 25.2 s, later than
    // the client's own request timeout): no reply.
    this.network.send(from.zone, to.zone, arrival - this.kernel.now, () => {
      if (from.generation !== generation) return;
      // A dead peer's connection is refused: an error reply, which does not vote.
      if (!to.up) return this.network.send(to.zone, from.zone, this.network.latency(), () => ack(PEER_DOWN));
      const r = to.apply(op);
      this.network.send(to.zone, from.zone, this.network.latency(), () => ack(r));
    });
  }

  private readAt(from: SimNode, to: SimNode, op: StoreOp, answer: (r: NodeReply) => void): void {
    this.network.send(from.zone, to.zone, this.network.latency(), () => {
      if (!to.up) return this.network.send(to.zone, from.zone, this.network.latency(), () => answer(PEER_DOWN));
      const r = to.apply(op);
      this.network.send(to.zone, from.zone, this.network.latency(), () => answer(r));
    });
  }

  crash(node: SimNode, loseUnreplicated: boolean): void {
    node.up = false;
    if (!loseUnreplicated) return;
    // Its unsent replication dies with it, and without persistence it restarts empty.
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
export const QUORUM_FAILED = 'ERR Dynomite: Failed to achieve Quorum';

/**
 * Dynomite's quorum reply (DYNOMITE.md "Replies under quorum"): replies are compared by content
 * in arrival order and the first two that agree are returned; the coordinator's own reply has no
 * priority; error replies do not vote. When every replica answered and no two agree, DC_QUORUM
 * returns the first good reply to arrive (the first error when none was good) and DC_SAFE_QUORUM
 * `ERR Dynomite: Failed to achieve Quorum` (the write has been applied everywhere by then).
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
    const key = r.ok ? JSON.stringify(r.value) : null;
    const agreeing = key === null ? 0 : this.arrived.filter((x) => x.ok && JSON.stringify(x.value) === key).length;
    if (agreeing >= Math.floor(this.replicas / 2) + 1) return this.decide(r);
    if (this.arrived.length < this.replicas) return;
    if (this.level === 'DC_SAFE_QUORUM') return this.decide({ ok: false, error: QUORUM_FAILED });
    this.decide(this.arrived.find((x) => x.ok) ?? this.arrived[0]!);
  }

  private decide(r: NodeReply): void {
    this.answered = true;
    this.answer(r);
  }
}
