import type { Kernel } from '../kernel/kernel.js';
import type { Observations } from '../kernel/observations.js';
import type { SimNode } from '../store/sim-node.js';
import type { NodeReply, StoreOp } from '../store/store-op.js';
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

/**
 * When Dynomite tries its dead redis again: 1 s after the connection broke, then after 2 s, 4 s …
 * (doubling). A restarted redis is served from the first try after it answers; until then every request
 * that needs it is refused with the storage error (DYNOMITE.md "Heals take time"; measured on the real
 * build: served 1.0 s, 3.0 s and 7.0 s after the kill, whatever the downtime in between).
 */
export function datastoreRetryAfter(brokeAt: number, now: number): number {
  let at = brokeAt + 1_000;
  for (let wait = 2_000; at < now; wait *= 2) at += wait;
  return at;
}

/**
 * How much of what was queued on a paused redis's connection still runs when it resumes after Dynomite
 * closed the connection: the redis reads its socket buffer (16 KB per read), runs those commands and
 * writes the replies, which the closed peer answers with a reset; its next write fails and it drops the
 * client with the rest unread. Measured on the real build (test/conformance/dynomite-real.test.ts):
 * of 2,000 40-byte HSETs queued on a paused redis, the first 921 (36.8 KB) ran and the rest never did.
 * The model runs the requests that fit whole in the first 32 KB (two reads) and drops the others.
 */
export const RUN_ON_RESUME_BYTES = 32 * 1024;

/** A request's size on the wire (RESP), for RUN_ON_RESUME_BYTES. */
function requestBytes(op: StoreOp): number {
  const parts =
    op.kind === 'cmd'
      ? [op.cmd, ...op.args]
      : op.kind === 'script'
        ? [op.viaSha ? 'EVALSHA' : 'EVAL', op.viaSha ? 'x'.repeat(40) : op.script.lua, String(op.keys.length), ...op.keys, ...op.args]
        : op.kind === 'wait'
          ? ['WAIT', String(op.replicas), String(op.timeoutMs)]
          : [];
  let bytes = `*${parts.length}\r\n`.length;
  for (const p of parts) {
    const len = Buffer.byteLength(p);
    bytes += `$${len}\r\n`.length + len + 2;
  }
  return bytes;
}

/** A request waiting on a busy (paused) redis. */
interface Pending {
  readonly bytes: number;
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
 *   and every one queued behind it fail with the storage error; on resume the redis still runs the
 *   first 32 KB of them (RUN_ON_RESUME_BYTES), the rest are **dropped** — they never run. Until the connection is reopened, commands for it are refused at once with the same
 *   error (req_forward_local_datastore). The model reopens it once the redis runs again (a paused
 *   redis answers nothing, so no new connection is usable before that).
 * - Restarted: served again only from Dynomite's next try to reconnect (datastoreRetryAfter; refused until then).
 * - Restarted empty: its data and script cache are gone, and nothing repairs it.
 */
export class DynomiteBackend {
  up = true;
  /** Until when a restarted redis is not served yet (Dynomite's next try: datastoreRetryAfter). */
  private reconnectedAt = 0;
  /** When it died: Dynomite's tries to reconnect count from here. */
  private diedAt = 0;
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
    if (this.kernel.now < this.reconnectedAt) {
      this.observations?.emit('storage-error', { node: this.node.name, cause: 'reconnecting' });
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
    const request: Pending = { bytes: requestBytes(op), answered: false, dropped: false, reply };
    this.pending.add(request);
    const generation = this.generation;
    this.kernel.quietAfter(DATASTORE_TIMEOUT_MS, () => {
      // Still unanswered on the same connection: it is the head of the queue (the oldest unanswered).
      if (!request.answered && this.generation === generation) this.closeConnection();
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
   * Dynomite's core_timeout: the connection closes and every request on it fails with the storage
   * error. What had reached the redis's socket still runs on resume as far as the redis reads it
   * before it notices the closed connection (RUN_ON_RESUME_BYTES, the timed-out head at least); the
   * rest is **dropped** (measured under load: an ack sent before the timeout never ran on the paused
   * replica, "Dropped 1269 outqueue & 1 inqueue requests").
   */
  private closeConnection(): void {
    this.disconnected = true;
    const failed = [...this.pending];
    let read = 0;
    for (const request of failed) {
      read += request.bytes;
      request.dropped = request !== failed[0] && read > RUN_ON_RESUME_BYTES;
      this.observations?.emit('storage-error', { node: this.node.name, cause: request.dropped ? 'dropped' : 'timeout' });
      this.answer(request, DATASTORE_REFUSED);
    }
  }

  crash(loseData: boolean): void {
    if (this.up) this.diedAt = this.kernel.now;
    this.up = false;
    this.generation++;
    this.disconnected = false;
    this.pending.clear();
    if (!loseData) return;
    this.observations?.emit('lost', { node: this.node.name, writes: this.node.keyspace.keyCount });
    this.node.wipe();
  }

  /** The redis answers again; its Dynomite serves it from its next try to reconnect. */
  restart(): void {
    if (this.up) return;
    this.up = true;
    this.reconnectedAt = datastoreRetryAfter(this.diedAt, this.kernel.now);
  }
}
