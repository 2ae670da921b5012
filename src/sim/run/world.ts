import { ActorTimers } from '../kernel/actor-time.js';
import type { SimConfig } from './config.js';
import { networkLag } from '../settings/settings.js';
import type { Consistency } from '../store/connection.js';
import { Kernel } from '../kernel/kernel.js';
import { Network } from '../kernel/network.js';
import { Observations } from '../kernel/observations.js';
import { Rng } from '../kernel/rng.js';
import { SimStore, type CallProbe } from '../store/sim-store.js';
import { DynomiteTopology } from '../topology/dynomite.js';
import { PrimaryReplicaTopology, REDIS_FULL_SYNC_DELAY_MS } from '../topology/primary-replica.js';
import type { Topology } from '../store/topology.js';
import { Trace, type TraceMode } from '../kernel/trace.js';
import { runBudget } from './run-budget.js';

/** Virtual time starts at a realistic epoch so that scores look like production ones. */
export const SIM_EPOCH = 1_700_000_000_000;

export interface ClientOptions {
  readonly role?: 'quorum' | 'nonQuorum';
  readonly consistency?: Consistency;
  readonly timers?: ActorTimers;
  readonly probe?: CallProbe;
  readonly requestTimeoutMs?: number;
  /** Send scripts as EVALSHA with an EVAL fallback (as IoredisStore does off Dynomite). */
  readonly evalsha?: boolean;
}

/**
 * The simulated world of one seed: virtual time, named random streams, the trace, the network and
 * the replicated store. The runner, the tests and the benchmarks all build it here.
 */
export class SimWorld {
  readonly kernel = new Kernel(SIM_EPOCH);
  readonly rng: Rng;
  readonly trace: Trace;
  readonly observations = new Observations();
  readonly network: Network;
  readonly topology: Topology;
  /**
   * Lease tokens of every queue in this world, from one seeded stream: unique across clients,
   * crashes and restarts (a restarted client draws on, it does not start over).
   */
  private readonly tokens: Rng;

  /** `traceMode` defaults to the config's: its lines kept (`keepTrace`) or only hashed. */
  constructor(
    readonly config: SimConfig,
    traceMode: TraceMode = config.keepTrace ? 'keep' : 'hash',
  ) {
    this.rng = new Rng(config.seed);
    this.trace = new Trace(traceMode);
    this.tokens = this.rng.stream('lease-tokens');
    const n = config.network;
    this.network = new Network(
      this.kernel,
      this.rng.stream('network'),
      { baseMs: n.latencyBaseMs, jitterMs: n.latencyJitterMs },
      networkLag(n),
      this.observations,
    );
    const t = config.topology;
    const budget = runBudget(config);
    this.kernel.eventBudget = budget.events;
    const scripts = { budget: budget.script, ...(config.scripts ? { mode: config.scripts } : {}) };
    this.topology =
      t.kind === 'dynomite'
        ? new DynomiteTopology(this.kernel, this.network, t.zones, this.observations, this.rng.stream('dynomite-vote-order'), scripts)
        : new PrimaryReplicaTopology(this.kernel, this.network, t.zones, t.failoverDelayMs, t.fullSyncDelayMs ?? REDIS_FULL_SYNC_DELAY_MS, this.rng.stream('sentinel'), this.observations, scripts);
    for (const node of this.topology.nodes) node.persistence = t.persistence ?? 'none';
  }

  /** One client connection of `actor`, living in `zone`, as a Store. */
  client(actor: string, zone: string, options: ClientOptions = {}): SimStore {
    const t = this.config.topology;
    const role = options.role ?? 'quorum';
    return new SimStore(
      this.kernel,
      this.topology,
      {
        actor,
        zone,
        role,
        consistency: options.consistency ?? (role === 'quorum' ? t.quorumConsistency : t.nonQuorumConsistency),
        timers: options.timers ?? new ActorTimers(this.kernel),
        nodeZone: zone,
      },
      this.trace,
      {
        requestTimeoutMs: options.requestTimeoutMs ?? this.config.network.requestTimeoutMs,
        failoverOnRefused: this.config.network.clientFailover,
        zones: t.zones,
        observations: this.observations,
        ...(options.probe ? { probe: options.probe } : {}),
        ...(options.evalsha ? { evalsha: true } : {}),
      },
    );
  }

  /** A fresh lease token (the queue's `randomId`). */
  readonly randomId = (): string => this.tokens.id128();

  /** Runs virtual time forward by `ms`. */
  advance(ms: number): Promise<void> {
    return this.kernel.runUntil(this.kernel.now + ms);
  }

  /** Awaits a promise while virtual time runs (at most `maxMs`). */
  async settle<T>(p: Promise<T>, maxMs = 10_000): Promise<T> {
    let done = false;
    const tracked = p.finally(() => {
      done = true;
    });
    tracked.catch(() => undefined);
    await this.kernel.runUntil(this.kernel.now + maxMs, () => done);
    return tracked;
  }
}
