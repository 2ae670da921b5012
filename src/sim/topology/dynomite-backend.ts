import type { Kernel } from '../kernel.js';
import type { Observations } from '../observations.js';
import type { NodeReply, SimNode, StoreOp } from '../sim-node.js';
import { PausableProcess } from './pausable-process.js';

/** Dynomite's datastore timeout (`timeout` in its configuration; DYNOMITE.md "Failures and repair"). */
export const DATASTORE_TIMEOUT_MS = 5_000;

/**
 * Dynomite's error replies have the shape `-ERR <source> <strerror>` (dyn_message.c msg_get_error;
 * the texts are read from the source, not measured). Neither starts with ECONNREFUSED: the client
 * reached a live Dynomite, which may have sent the write on to its peers.
 */
export const STORAGE_REFUSED: NodeReply = { ok: false, error: 'ERR Storage: Connection refused' };
export const STORAGE_TIMED_OUT: NodeReply = { ok: false, error: 'ERR Storage: Connection timed out' };

/**
 * The redis-server behind one Dynomite node: a process of its own, so it fails on its own
 * (DYNOMITE.md: "Dynomite and its redis are separate processes and fail separately"). Its data is the
 * node's keyspace.
 * - Dead: Dynomite answers every command sent to it with a storage error at once (and still
 *   forwards writes to its peers: the caller's business).
 * - Paused: commands wait in its socket and run in order when it resumes; Dynomite gives up on each
 *   one after the datastore timeout with an error, but the command still runs on resume. DYNOMITE.md
 *   measured that for commands sent before the timeout; for commands sent after it, Dynomite reopens
 *   the connection and a paused redis still accepts it into its backlog (source), so the model runs
 *   those on resume too — the adversarial choice: more writes reported failed and applied anyway.
 * - Restarted empty: its data and script cache are gone, and nothing repairs it.
 */
export class DynomiteBackend {
  up = true;
  readonly process: PausableProcess;
  /** Bumped when it dies: commands waiting in the dead process's socket die with it. */
  private generation = 0;

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
      return reply(STORAGE_REFUSED);
    }
    if (!this.process.busy) return reply(this.node.apply(op));
    let answered = false;
    const answer = (r: NodeReply) => {
      if (answered) return;
      answered = true;
      reply(r);
    };
    const generation = this.generation;
    this.kernel.quietAfter(DATASTORE_TIMEOUT_MS, () => {
      if (!answered) this.observations?.emit('storage-error', { node: this.node.name, cause: 'timeout' });
      answer(STORAGE_TIMED_OUT);
    });
    this.process.run(() => {
      if (this.up && this.generation === generation) answer(this.node.apply(op));
    });
  }

  crash(loseData: boolean): void {
    this.up = false;
    this.generation++;
    if (!loseData) return;
    this.observations?.emit('lost', { node: this.node.name, writes: this.node.keyspace.keyCount });
    this.node.wipe();
  }

  restart(): void {
    this.up = true;
  }
}
