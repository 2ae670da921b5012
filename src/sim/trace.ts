import { createHash, type Hash } from 'node:crypto';

export interface TraceEvent {
  /** True virtual time (ms). */
  readonly t: number;
  readonly actor: string;
  readonly op: string;
  readonly args?: unknown;
  readonly result?: unknown;
}

/**
 * The run's trace: one JSON line per event, hashed as it is written (SHA-256 over the lines), kept
 * in memory only when asked, so that long runs can be hashed without holding their trace.
 */
export class Trace {
  private readonly hash: Hash = createHash('sha256');
  private readonly lines: string[] | null;
  private count = 0;
  /** Lines not yet hashed: hashing in chunks digests the same bytes with far fewer native calls. */
  private pending = '';
  private sealed = false;

  constructor(keepLines: boolean) {
    this.lines = keepLines ? [] : null;
  }

  record(event: TraceEvent): void {
    // After the digest (the run is over: only replication draining for the replica check) nothing is recorded.
    if (this.sealed) return;
    const line = JSON.stringify(event);
    this.pending += `${line}\n`;
    if (this.pending.length > 65_536) this.flush();
    this.lines?.push(line);
    this.count++;
  }

  get events(): number {
    return this.count;
  }

  /** The lines, when kept. */
  text(): string | null {
    return this.lines ? `${this.lines.join('\n')}\n` : null;
  }

  private flush(): void {
    this.hash.update(this.pending);
    this.pending = '';
  }

  /** Finishes the hash; call once, at the end of the run. */
  digest(): string {
    this.flush();
    this.sealed = true;
    return this.hash.digest('hex');
  }
}
