import type { Fault, SimConfig } from '../../../sim/run/config.js';
import type { RealCluster } from '../../cluster.js';
import type { RealActor } from '../real-actor.js';

/** What a real fault acts on: the processes, and the clients of this Node process. */
export interface RealFaultWorld {
  readonly cluster: RealCluster;
  /** The configuration the twin runs (its persistence and supervisor rule). */
  readonly config: SimConfig;
  actor(name: string): RealActor | undefined;
  actors(): Iterable<RealActor>;
  /** Called with every process action the fault took, for the run's log. */
  log(line: string): void;
  /** ms since the run began: when a fault really struck or healed. */
  now(): number;
  /** A fault took effect at `at` (ms since the start); returns a setter for its real duration once it healed. */
  struck(fault: Fault, at: number): (durationMs: number) => void;
}

/** One run's means of a family: what it has in effect lives here until the liveness phase heals it. */
export interface RealFaultRun<F> {
  /** Strikes one fault on the real processes or clients. */
  strike(fault: F): Promise<void>;
  /** The liveness phase: ends whatever of this family is still in effect. */
  healAll(): Promise<void>;
}

/**
 * How a fault family is done on real processes (SIGKILL, SIGSTOP, CONFIG SET, a client's connections
 * moved): the real-process side of a family of `src/sim/faults`, one file per family here and one line
 * in the REAL_MEANS registry of `index.ts`.
 */
export interface RealMeans<F extends Fault> {
  /**
   * What a fault acts on, for keeping the schedule's order per target: a fault waits for the one before
   * it on the same target to finish (a crash of a zone still restarting strikes once it is up, as in
   * the simulation, where a restart is instant).
   */
  target(fault: F): string;
  /** Why this fault cannot strike a real twin of this configuration (undefined: it can). */
  problem?(fault: F, config: SimConfig): string | undefined;
  /** The means for one run, with its own state. */
  start(world: RealFaultWorld): RealFaultRun<F>;
}

/** Store faults act on the zone's rack. */
export const zoneTarget = (f: { readonly zone: string }): string => `zone:${f.zone}`;
