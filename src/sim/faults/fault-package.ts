import type * as z from 'zod';
import type { ActorTimers, SkewedClock } from '../kernel/actor-time.js';
import type { SimSettings } from '../settings/settings.js';
import type { Kernel } from '../kernel/kernel.js';
import type { Network } from '../kernel/network.js';
import type { Observations } from '../kernel/observations.js';
import type { Rng } from '../kernel/rng.js';
import type { Topology, TopologyKind } from '../store/topology.js';
import type { Trace } from '../kernel/trace.js';
import type { Connection } from '../store/connection.js';
import type { PropertyName } from '../../model/properties.js';
import type { Exposure } from './exposure.js';

/** A client process as a fault sees it (the run's SimActor is one). */
interface FaultActor {
  readonly name: string;
  /** The zone it lives in (its connections' home). */
  readonly zone: string;
  readonly clock: SkewedClock;
  readonly timers: ActorTimers;
  readonly connections: readonly Connection[];
  readonly crashed: boolean;
  crash(): void;
  pause(untilTrueTime: number): void;
}

/** The world as a fault sees it while the run goes on. */
export interface FaultWorld {
  readonly kernel: Kernel;
  readonly network: Network;
  readonly topology: Topology;
  readonly trace: Trace;
  readonly observations: Observations;
  readonly config: SimSettings;
  actor(name: string): FaultActor | undefined;
  actors(): Iterable<FaultActor>;
  /** What this client holds now: delivered, no ack returned, lease not passed on the true clock. */
  heldBy(actor: string): readonly { readonly id: string; readonly leaseUntil: number }[];
  /** Calls this client has in flight, pops included. */
  inFlight(actor: string): number;
}

/** What a fault schedule is drawn for. */
export interface DrawContext {
  readonly config: SimSettings;
  /** The first time and the time span faults are drawn in (ms after the start). */
  readonly at: number;
  readonly safetyMs: number;
  readonly zones: readonly string[];
  readonly nodes: readonly string[];
  /** Consumers not crashed by an earlier draw of the same schedule. */
  readonly consumers: readonly string[];
  /** Record a consumer this draw crashes, so that later draws leave it alone. */
  crashed(actor: string): void;
}

/** Names a fault refers to, checked against the configuration before a run. */
interface FaultTargets {
  readonly zones?: readonly string[];
  readonly actors?: readonly string[];
  /** An actor or a node. */
  readonly clocks?: readonly string[];
}

/** A fault drawn as a band: on one lane, or across the whole picture when `lane` is null. */
export interface Band {
  readonly kind: string;
  readonly lane: string | null;
  readonly from: number;
  readonly to: number;
  readonly label: string;
}

export interface BandContext {
  readonly config: SimSettings;
  /** Every fault of the run as it struck, in time order, and this one's place among them. */
  readonly faults: readonly { readonly t: number; readonly fault: { readonly kind: string } }[];
  readonly index: number;
  readonly livenessStart: number;
  /** A width that reads as an instant at the picture's scale. */
  readonly instant: number;
}

/**
 * One fault family (Jepsen's nemesis package), every fact about it in one place: its schemas, how it
 * strikes and measures what it changed, how it heals, how it is drawn at random, what it names, how it
 * is drawn in a picture, what helps against what it causes, its docs row.
 */
export interface FaultPackage<F extends { readonly kind: string; readonly at: number }> {
  readonly family: string;
  readonly description: string;
  readonly schemas: readonly z.ZodObject[];
  /** The only topology its faults exist on (a scheduled one elsewhere is a configuration problem). */
  readonly requiresTopology?: TopologyKind;
  /** Strikes now, recording into `exposure` what it changed (listening while it is active). */
  apply(world: FaultWorld, fault: F, exposure: Exposure): void;
  /** The liveness phase: end whatever of this family is still in effect. */
  healAll(world: FaultWorld): void;
  /**
   * False: drawn only when named (`families`, `--faults`), never by default (a swarm, explore): for a
   * set-up the library refuses at start, whose certain losses would hide every other mechanism.
   */
  readonly drawnByDefault?: boolean;
  /** False when no fault of this family can change anything in this configuration. */
  applicable(config: SimSettings): boolean;
  /** One drawn instance: a fault, or a pair such as a crash and its restart. */
  generate(rng: Rng, ctx: DrawContext): F[];
  targets(fault: F): FaultTargets;
  band(fault: F, t: number, ctx: BandContext): Band | null;
  /** The exposure counts `apply` records that say most about a finding, most telling first (a mechanism names the first that counted). */
  readonly exposureNames: readonly string[];
  /** What a mechanism adds after the family's name for this fault (" of a node"); none: nothing. */
  causeDetail?(fault: F): string;
  /** What helps against a finding of each property this family can break (the guarantees table's advice). */
  readonly advice?: Readonly<Partial<Record<PropertyName, string>>>;
  /** CSS colour of its bands in the HTML report. */
  readonly bandColour: string;
  /** The notes column of its docs row, besides `requiresTopology` (stated there on its own). */
  readonly docsNote?: string;
}

/** The faults a family's schemas parse to. */
type FaultOf<S extends readonly z.ZodObject[]> = z.output<S[number]> & { readonly kind: string; readonly at: number };

/**
 * A family's package with its name and schemas kept literal (the registry derives the family names,
 * the fault type and its schema from them) and its faults typed by its schemas.
 */
export function faultFamily<const N extends string, const S extends readonly z.ZodObject[]>(p: FamilyPackage<N, S>): FamilyPackage<N, S> {
  return p;
}

/** A family's package as the registry holds it: its name and schemas literal. */
type FamilyPackage<N extends string, S extends readonly z.ZodObject[]> = Omit<FaultPackage<FaultOf<S>>, 'family' | 'schemas'> & { readonly family: N; readonly schemas: S };
