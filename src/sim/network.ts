import type { Kernel } from './kernel.js';
import type { Rng } from './rng.js';

export interface LatencyModel {
  /** One-way client↔node and node↔node network latency (ms): base + exponential jitter. */
  readonly baseMs: number;
  readonly jitterMs: number;
}

export interface LagModel {
  /** Extra replication delay on top of network latency: exponential with this mean (ms). */
  readonly meanMs: number;
  /** Probability that one replicated write is hit by a spike. */
  readonly spikeProbability: number;
  readonly spikeMs: number;
}

/**
 * The network fault domain: per-zone-pair reachability (symmetric and one-way partitions),
 * latency, replication lag and lag spikes. Messages across a blocked pair are dropped.
 */
export class Network {
  private readonly blocked = new Set<string>();
  /** Extra lag while a lag-spike fault is active. */
  extraLagMs = 0;

  constructor(
    private readonly kernel: Kernel,
    private readonly rng: Rng,
    readonly latencyModel: LatencyModel,
    readonly lagModel: LagModel,
  ) {}

  block(fromZone: string, toZone: string): void {
    this.blocked.add(`${fromZone}>${toZone}`);
  }

  healAll(): void {
    this.blocked.clear();
  }

  canSend(fromZone: string, toZone: string): boolean {
    return fromZone === toZone || !this.blocked.has(`${fromZone}>${toZone}`);
  }

  latency(): number {
    return this.latencyModel.baseMs + this.rng.exponential(this.latencyModel.jitterMs);
  }

  replicationLag(): number {
    const m = this.lagModel;
    let lag = this.latency() + this.rng.exponential(m.meanMs) + this.extraLagMs;
    if (this.rng.chance(m.spikeProbability)) lag += m.spikeMs;
    return lag;
  }

  /** Delivers `fn` after a latency if the pair is reachable now; returns false when dropped. */
  send(fromZone: string, toZone: string, delay: number, fn: () => void): boolean {
    if (!this.canSend(fromZone, toZone)) return false;
    this.kernel.after(delay, fn);
    return true;
  }
}
