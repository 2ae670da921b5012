import type { Kernel } from '../kernel.js';
import type { Observations } from '../observations.js';
import type { NodeReply, SimNode, StoreOp } from '../sim-node.js';
import { PausableProcess } from './pausable-process.js';

/** Dynomite's datastore timeout (`timeout` in its configuration; DYNOMITE.md "Failures and repair"). */
export const DATASTORE_TIMEOUT_MS = 5_000;

/**
 * Dynomite's error reply for every storage failure (dyn_message.c msg_get_error with
 * STORAGE_CONNECTION_REFUSE, `-ERR <source> <dn_strerror>`): a dead redis, a request that timed out on
 * a paused one, every request dropped behind it, and every request while the datastore connection is
 * down (DYNOMITE.md "Failures and repair"). It does not start with ECONNREFUSED: the client reached a
 * live Dynomite, which may have sent the write on to its peers.
 */
export const DATASTORE_REFUSED: NodeReply = { ok: false, error: 'ERR Storage: Datastore refused connection' };

/** A request waiting on a busy (paused) redis. */
interface Pending {
  answered: boolean;
  /** Dynomite closed the connection with it queued behind a timed-out request: it never runs. */
  dropped: boolean;
  readonly reply: (r: NodeReply) => void;
}

/**
 * The redis-server behind one Dynomite node: a process of its own, so it fails on its own
 * (DYNOMITE.md: "Dynomite and its redis are separate processes and fail separately"). Its data is the
 * node's keyspace. Dynomite talks to it over one datastore connection.
 * - Dead: Dynomite answers every command sent to it with the storage error at once (and still
 *   forwards writes to its peers: the caller's business).
 * - Paused: commands wait in the connection and run in order when it resumes — unless the request at
 *   the head of the connection passes the 5 s datastore timeout first. Then Dynomite closes the
 *   connection (core_timeout, server_close: "Dropped N outqueue & M inqueue requests"): that request
 *   and every one queued behind it fail with the storage error; the head still runs on resume, the
 *   ones behind it are **dropped** — they never run. Until the connection is reopened, commands for it are refused at once with the same
 *   error (req_forward_local_datastore). The model reopens it once the redis runs again (a paused
 *   redis answers nothing, so no new connection is usable before that).
 * - Restarted empty: its data and script cache are gone, and nothing repairs it.
 */
export class DynomiteBackend {
  up = true;
  readonly process: PausableProcess;
  /** Bumped when it dies: commands waiting in the dead process's socket die with it. */
  private generation = 0;
  /** Dynomite closed the datastore connection after a timeout; it reopens once the redis runs again. */
  private disconnected = false;
  /** Requests sent on the current connection and not yet answered: failed together when it closes. */
  private readonly pending = new Set<Pending>();

  constructor(
    private readonly kernel: Kernel,
    readonly node: SimNode,
    private readonly observations?: Observations,
  ) {
    this.process = new PausableProcess(kernel, () => observations?.emit('held', { node: node.name, process: 'redis' }));
  }

  /** Runs `op` on this node's data; `reply` is called exactly once (at once when the backend is healthy). */
  execute(op: StoreOp, reply: (r: NodeReply) => void): void {
    if (!this.up) {
      this.observations?.emit('storage-error', { node: this.node.name, cause: 'dead' });
      return reply(DATASTORE_REFUSED);
    }
    if (this.disconnected) {
      if (this.process.paused) {
        this.observations?.emit('storage-error', { node: this.node.name, cause: 'disconnected' });
        return reply(DATASTORE_REFUSED);
      }
      this.disconnected = false;
    }
    if (!this.process.busy) return reply(this.node.apply(op));
    const request: Pending = { answered: false, dropped: false, reply };
    this.pending.add(request);
    const generation = this.generation;
    this.kernel.quietAfter(DATASTORE_TIMEOUT_MS, () => {
      // Still unanswered on the same connection: it is the head of the queue (the oldest unanswered).
      if (!request.answered && this.generation === generation) this.closeConnection(request);
    });
    this.process.run(() => {
      if (!this.up || this.generation !== generation || request.dropped) return;
      const r = this.node.apply(op);
      if (!request.answered) this.answer(request, r);
    });
  }

  private answer(request: Pending, r: NodeReply): void {
    request.answered = true;
    this.pending.delete(request);
    request.reply(r);
  }

  /**
   * Dynomite's core_timeout: the connection closes and every request on it fails. The timed-out head
   * had reached the redis's socket and still runs on resume (measured with one write in flight: "all
   * three applied on resume"); those queued behind it are dropped (measured under load: an ack sent
   * before the timeout never ran on the paused replica).
   */
  private closeConnection(head: Pending): void {
    this.disconnected = true;
    const failed = [...this.pending];
    for (const request of failed) {
      request.dropped = request !== head;
      this.observations?.emit('storage-error', { node: this.node.name, cause: request.dropped ? 'dropped' : 'timeout' });
      this.answer(request, DATASTORE_REFUSED);
    }
  }

  crash(loseData: boolean): void {
    this.up = false;
    this.generation++;
    this.disconnected = false;
    this.pending.clear();
    if (!loseData) return;
    this.observations?.emit('lost', { node: this.node.name, writes: this.node.keyspace.keyCount });
    this.node.wipe();
  }

  restart(): void {
    this.up = true;
  }
}
