import type { ActorTimers } from '../kernel/actor-time.js';

/** Dynomite's per-connection consistency levels. */
export type Consistency = 'DC_ONE' | 'DC_QUORUM' | 'DC_SAFE_QUORUM';

/** One client connection: who holds it, where it lives, which node zone it talks to now. */
export interface Connection {
  readonly actor: string;
  /** The zone the client runs in (network reachability is judged from here). */
  readonly zone: string;
  readonly role: 'quorum' | 'nonQuorum';
  readonly consistency: Consistency;
  readonly timers: ActorTimers;
  /** The zone whose node this connection uses; client failover changes it. */
  nodeZone: string;
  /** The server closed the connection: every request in flight on it fails with `error` (set by the client's store). */
  close?: (error: string) => void;
  /** The node this connection uses died: the client's store reacts as its real client does (set by the store). */
  nodeDied?: () => void;
  /** A reset armed by the client's own workload (shared by its connections): see ConnectionReset. */
  reset?: ConnectionReset;
}

/**
 * The server resets the client's connection while the `left`-th request from now (counted over the
 * connections sharing this object) is in flight: a CLIENT KILL or a proxy's reset. ioredis with
 * connect()'s settings reconnects at once and does not re-send what was in flight, so the replies of
 * the requests on that connection are lost and they fail at the request timeout; they may have run.
 * 0: disarmed.
 */
export interface ConnectionReset {
  left: number;
}
