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
      if (op.kind === 'wait') return back({ ok: true, value: 0 });
      const local = target.apply(op);
      const write = isWrite(op);
      const peers = this.nodes.filter((n) => n !== target);
      const majority = Math.floor(this.nodes.length / 2) + 1;
      if (conn.consistency === 'DC_ONE') {
        if (write) for (const peer of peers) this.forward(target, peer, op, () => undefined);
        return back(local);
      }
      const results: NodeReply[] = [local];
      let answered = false;
      const collect = (r: NodeReply) => {
        if (answered) return;
        results.push(r);
        if (results.length < majority) return;
        answered = true;
        if (conn.consistency === 'DC_SAFE_QUORUM' && !results.every((x) => same(x, local))) {
          back({ ok: false, error: 'ERR DC_SAFE_QUORUM: replicas disagree' });
        } else back(local);
      };
      if (majority <= 1) {
        answered = true;
        return back(local);
      }
      for (const peer of peers) {
        if (write) this.forward(target, peer, op, collect);
        else this.readAt(target, peer, op, collect);
      }
    });
  }

  /** Replicates a write to a peer; the peer re-executes it and acks to the coordinator. */
  private forward(from: SimNode, to: SimNode, op: StoreOp, ack: (r: NodeReply) => void): void {
    const link = `${from.name}>${to.name}`;
    const arrival = Math.max(this.kernel.now + this.network.replicationLag(), this.linkClock.get(link) ?? 0);
    this.linkClock.set(link, arrival);
    const generation = from.generation;
    this.network.send(from.zone, to.zone, arrival - this.kernel.now, () => {
      if (!to.up || from.generation !== generation) return;
      const r = to.apply(op);
      this.network.send(to.zone, from.zone, this.network.latency(), () => ack(r));
    });
  }

  private readAt(from: SimNode, to: SimNode, op: StoreOp, answer: (r: NodeReply) => void): void {
    this.network.send(from.zone, to.zone, this.network.latency(), () => {
      if (!to.up) return;
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

function same(a: NodeReply, b: NodeReply): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}
