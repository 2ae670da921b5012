import type { Kernel } from './kernel.js';
import type { Observations } from './observations.js';
import type { Rng } from './rng.js';

interface LatencyModel {
  /** One-way client↔node and node↔node network latency (ms): base + exponential jitter. */
  readonly baseMs: number;
  readonly jitterMs: number;
}

interface LagModel {
  /** Extra replication delay on top of network latency: exponential with this mean (ms). */
  readonly meanMs: number;
  /** Probability that one replicated write is hit by a spike. */
  readonly spikeProbability: number;
  readonly spikeMs: number;
}

/**
 * How long bytes may wait across a partition and still arrive: Dynomite's peer-write timeout (DYNOMITE.md
 * "Failures and repair"), after which it gives up on the connection. A client's ioredis connection
 * outlasts it (a command timeout rejects the call, it does not close the connection).
 */
const PARTITION_HOLD_LIMIT_MS = 25_200;

/**
 * The network fault domain: per-zone-pair reachability (symmetric and one-way partitions),
 * latency, replication lag and lag spikes. A message across a blocked pair travels on an
 * established TCP connection: it waits (TCP retransmits into the partition) and arrives once the pair
 * heals, in order, as the real peer links were measured to do through a partitioning proxy; one that
 * waited past PARTITION_HOLD_LIMIT_MS is dropped. Blocks are counted, so that two overlapping
 * partitions of one pair heal one at a time.
 */
export class Network {
  private readonly blocked = new Map<string, number>();
  /** Per blocked pair, what was sent across it since it was blocked, in order. */
  private readonly held = new Map<string, { readonly since: number; readonly fn: () => void; readonly from: string; readonly to: string }[]>();
  /**
   * Per pair that was released, when its held bytes arrive: nothing sent on the pair afterwards may
   * arrive before them (one TCP stream per link delivers in order).
   */
  private readonly releasedUntil = new Map<string, number>();
  /** Extra lag while lag-spike faults are active (each adds its own and takes it back). */
  extraLagMs = 0;

  constructor(
    private readonly kernel: Kernel,
    private readonly rng: Rng,
    readonly latencyModel: LatencyModel,
    readonly lagModel: LagModel,
    private readonly observations?: Observations,
  ) {}

  block(fromZone: string, toZone: string): void {
    const key = `${fromZone}>${toZone}`;
    this.blocked.set(key, (this.blocked.get(key) ?? 0) + 1);
  }

  /** Takes back one block of the pair (the one a healing partition had set). */
  unblock(fromZone: string, toZone: string): void {
    const key = `${fromZone}>${toZone}`;
    const n = (this.blocked.get(key) ?? 0) - 1;
    if (n > 0) this.blocked.set(key, n);
    else {
      this.blocked.delete(key);
      this.release(key);
    }
  }

  /** Ends every partition at once (the liveness phase). */
  healAll(): void {
    this.blocked.clear();
    for (const key of [...this.held.keys()]) this.release(key);
  }

  /**
   * The pair healed: what waited arrives in the order it was sent, together, one latency from now (a
   * latency drawn per message would let later bytes overtake earlier ones on the same stream, which a
   * real link never does: DYNOMITE.md "Partitions"); what waited too long is lost.
   */
  private release(key: string): void {
    const waiting = this.held.get(key) ?? [];
    this.held.delete(key);
    if (waiting.length === 0) return;
    const arrival = this.kernel.now + this.latency();
    this.releasedUntil.set(key, arrival);
    // Equal times run in scheduling order (the kernel's stable order): the held bytes keep theirs.
    for (const m of waiting) {
      if (this.kernel.now - m.since > PARTITION_HOLD_LIMIT_MS) this.observations?.emit('dropped', { from: m.from, to: m.to });
      else this.kernel.quietAt(arrival, m.fn);
    }
  }

  canSend(fromZone: string, toZone: string): boolean {
    return fromZone === toZone || this.blocked.size === 0 || !this.blocked.has(`${fromZone}>${toZone}`);
  }

  latency(): number {
    return this.latencyModel.baseMs + this.rng.exponential(this.latencyModel.jitterMs);
  }

  /** One replicated write's delay, drawn for it alone (a primary's stream to one replica). */
  replicationLag(): number {
    const m = this.lagModel;
    let lag = this.latency() + this.rng.exponential(m.meanMs) + this.extraLagMs;
    if (this.rng.chance(m.spikeProbability)) lag += m.spikeMs;
    this.observations?.emit('replicated', { lagMs: lag });
    return lag;
  }

  /**
   * The replication lag that every copy of one request shares: a coordinator hands the request to all
   * its peer connections in one event-loop pass, so the copies leave together and are not delayed
   * independently (DYNOMITE.md "Ordering"). Exponential with the mean lag, plus a spike when one
   * strikes (on the WAN profile), plus any lag-spike fault's extra lag.
   */
  requestLag(): number {
    const m = this.lagModel;
    let lag = this.rng.exponential(m.meanMs) + this.extraLagMs;
    if (this.rng.chance(m.spikeProbability)) lag += m.spikeMs;
    return lag;
  }

  /** One copy of a request on its link: the link's one-way latency on top of the request's shared lag. */
  copyLag(shared: number): number {
    const lag = this.latency() + shared;
    this.observations?.emit('replicated', { lagMs: lag });
    return lag;
  }

  /** Delivers `fn` after `delay`, or once the pair heals if it is partitioned now. */
  send(fromZone: string, toZone: string, delay: number, fn: () => void): void {
    if (!this.canSend(fromZone, toZone)) {
      const key = `${fromZone}>${toZone}`;
      let waiting = this.held.get(key);
      if (!waiting) this.held.set(key, (waiting = []));
      waiting.push({ since: this.kernel.now, fn, from: fromZone, to: toZone });
      this.observations?.emit('held-by-partition', { from: fromZone, to: toZone });
      return;
    }
    // Behind what a heal released on this pair, never before it.
    const floor = this.releasedUntil.size === 0 ? 0 : (this.releasedUntil.get(`${fromZone}>${toZone}`) ?? 0);
    // Quiet: a packet settles a promise only through the receiving actor's timers, which say so.
    if (floor > this.kernel.now + delay) this.kernel.quietAt(floor, fn);
    else this.kernel.quietAfter(delay, fn);
  }
}
