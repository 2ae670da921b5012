import type { Kernel } from '../kernel/kernel.js';

interface Outstanding {
  readonly deadline: number;
  readonly timedOut: () => void;
}

/**
 * One Dynomite node's connection to one peer (Dynomite keeps one per peer; DYNOMITE.md "Ordering").
 * Replicated writes arrive in the order they were sent. A request the peer has not answered by its
 * timeout makes the coordinator close the connection (twemproxy's core_timeout): every request still
 * outstanding on it fails with a timeout error and their replies are ignored — but they are already
 * in the peer's socket, so a paused peer still runs them when it resumes. While the link is closed and
 * the peer still paused, new requests are dropped (DYNOMITE.md: "only writes issued after the
 * coordinator timed out the peer link are dropped").
 */
export class PeerLink {
  /** The coordinator gave up on the connection; it reconnects once the peer answers again. */
  closed = false;
  /** When the last replicated write reaches the peer: later ones never arrive before it. */
  lastArrival = 0;
  private readonly outstanding = new Set<Outstanding>();
  private nextCheck: number | null = null;

  constructor(
    private readonly kernel: Kernel,
    /** Runs the coordinator's timeout check in its process (a paused coordinator checks late). */
    private readonly inCoordinator: (fn: () => void) => void,
    private readonly onTimeout: () => void,
  ) {}

  /**
   * A request sent on this link; `timedOut` is called if the link times out first. Returns what to
   * call when its reply arrives: true if the reply still counts (the link was not closed meanwhile).
   */
  track(timeoutMs: number, timedOut: () => void): () => boolean {
    const entry: Outstanding = { deadline: this.kernel.now + timeoutMs, timedOut };
    this.outstanding.add(entry);
    this.arm(entry.deadline);
    return () => this.outstanding.delete(entry);
  }

  /** One timer per link, at the earliest deadline: cheap, since nearly every reply comes in ms. */
  private arm(at: number): void {
    if (this.nextCheck !== null && this.nextCheck <= at) return;
    this.nextCheck = at;
    this.kernel.quietAt(at, () =>
      this.inCoordinator(() => {
        if (this.nextCheck !== at) return;
        this.nextCheck = null;
        this.check();
      }),
    );
  }

  private check(): void {
    const now = this.kernel.now;
    let earliest = Infinity;
    let expired = false;
    for (const e of this.outstanding) {
      if (e.deadline <= now) expired = true;
      else earliest = Math.min(earliest, e.deadline);
    }
    if (!expired) {
      if (earliest < Infinity) this.arm(earliest);
      return;
    }
    this.closed = true;
    this.onTimeout();
    const failed = [...this.outstanding];
    this.outstanding.clear();
    for (const e of failed) e.timedOut();
  }
}
