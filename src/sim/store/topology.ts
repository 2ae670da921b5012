import type { Connection } from './connection.js';
import type { SimNode } from './sim-node.js';
import type { NodeReply, StoreOp } from './store-op.js';

export type TopologyKind = 'dynomite' | 'primary-replica';

/**
 * A replicated store: routes a client's operation to nodes, replicates it, and calls `reply`
 * (at most once) when the answer reaches the client. An answer that never arrives is a timeout,
 * which the client side decides.
 */
export interface Topology {
  readonly kind: TopologyKind;
  readonly nodes: readonly SimNode[];
  handle(conn: Connection, op: StoreOp, reply: (r: NodeReply) => void): void;
  /** A client connection opened (idle or not): a topology that tells clients of a node's death keeps it. */
  attach?(conn: Connection): void;
  crash(node: SimNode, loseUnreplicated: boolean): void;
  restart(node: SimNode): void;
  /** After a partition heals: let replication catch up where the topology buffers it. */
  resume(): void;
  /** Brings every node back (liveness phase), but those in `keptDown`. */
  recoverAll(): void;
  /**
   * Processes the liveness phase leaves down until a heal of their own (phases.livenessHeals, a real
   * twin's restarts as they happened), as `node:<zone>` or `backend:<zone>`.
   */
  readonly keptDown: Set<string>;
}

export const REFUSED: NodeReply = { ok: false, error: 'ECONNREFUSED node is down' };
