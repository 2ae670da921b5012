import type { SimSettings } from '../settings/settings.js';

/**
 * Real store processes as a fault's real means act on them (a real twin's cluster is one): SIGKILL
 * and restart, SIGSTOP/SIGCONT, peer links held in proxies.
 */
export interface RealProcesses {
  readonly kind: 'primary-replica' | 'dynomite';
  crashNode(zone: string): Promise<void>;
  restartNode(zone: string, options: { readonly empty: boolean }): Promise<void>;
  crashBackend(zone: string): Promise<void>;
  restartBackend(zone: string, options: { readonly empty: boolean }): Promise<void>;
  pause(zone: string, which: 'node' | 'backend'): void;
  resume(zone: string, which: 'node' | 'backend'): void;
  partition(from: string, to: string, oneWay: boolean): void;
  heal(from: string, to: string): void;
}

/** A client of the real twin's Node process, as a fault acts on it. */
export interface RealClient {
  readonly name: string;
  readonly clock: { offset: number };
  crash(): void;
}

/** What a real fault acts on: the processes, the clients, the run's log and real time. */
export interface RealFaultWorld {
  readonly cluster: RealProcesses;
  actor(name: string): RealClient | undefined;
  actors(): Iterable<RealClient>;
  /** Called with every process action the fault took, for the run's log. */
  log(line: string): void;
  /** Runs `fn` after `ms` of real time; the function returned cancels it. */
  after(ms: number, fn: () => void): () => void;
}

/** One real run's means for a family: strikes its faults and, in the liveness phase, ends what is still in effect. */
export interface RealFamilyRun<F> {
  strike(world: RealFaultWorld, fault: F): Promise<void>;
  healAll(world: RealFaultWorld): Promise<void> | void;
}

/** How a family's faults are struck on real processes. */
export interface RealMeans<F> {
  /** Why this fault cannot be struck on real processes in these settings (null: it can). */
  problem?(fault: F, settings: SimSettings): string | null;
  /** Fresh state for one real run. */
  start(): RealFamilyRun<F>;
}
