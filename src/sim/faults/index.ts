import * as z from 'zod';
import type { SimSettings } from '../settings/settings.js';
import type { Rng } from '../kernel/rng.js';
import { nodeName } from '../topology/node-name.js';
import { backendCrash } from './backend-crash.js';
import { clientCrash } from './client-crash.js';
import { clientFailover } from './client-failover.js';
import { clientPause } from './client-pause.js';
import { clock } from './clock.js';
import { consumerClocksFamily } from './consumer-clocks.js';
import { Exposure } from './exposure.js';
import type { Band, BandContext, DrawContext, FaultPackage, FaultWorld } from './fault-package.js';
import { lagSpike } from './lag-spike.js';
import { nodeCrash } from './node-crash.js';
import { nodeStall } from './node-stall.js';
import { partition } from './partition.js';
import { memoryPressureFamily } from './memory-pressure.js';
import { evictionFamily } from './eviction.js';
import { processCrash } from './process-crash.js';
import { processCrashFailover } from './process-crash-failover.js';
import { powerLossFamily } from './power-loss.js';

export { describeExposure, Exposure } from './exposure.js';
export type { Band, FaultWorld } from './fault-package.js';

/** Every fault family, one module each: a new family is its file and one line here. Every list of families, kinds, schemas, advice, colours and real means derives from this one. */
const FAMILIES = [
  nodeCrash,
  partition,
  clientFailover,
  clientCrash,
  clientPause,
  clock,
  consumerClocksFamily,
  lagSpike,
  backendCrash,
  nodeStall,
  memoryPressureFamily,
  evictionFamily,
  processCrash,
  processCrashFailover,
  powerLossFamily,
] as const;

type FaultSchema = (typeof FAMILIES)[number]['schemas'][number];
export const faultSchema = z.discriminatedUnion('kind', FAMILIES.flatMap((f): readonly FaultSchema[] => f.schemas) as unknown as [FaultSchema, ...FaultSchema[]]);
export type Fault = z.output<typeof faultSchema>;
export type FaultKind = Fault['kind'];

export type FaultFamily = (typeof FAMILIES)[number]['family'];
/** Every fault family by name. */
export const FAULT_FAMILIES = Object.fromEntries(FAMILIES.map((f) => [f.family, f])) as { readonly [P in (typeof FAMILIES)[number] as P['family']]: P };
export const FAULT_FAMILY_NAMES: FaultFamily[] = FAMILIES.map((f) => f.family);
/** The faults of one family, as its schemas parse them. */
export type FaultOfFamily<F extends FaultFamily> = z.output<(typeof FAULT_FAMILIES)[F]['schemas'][number]>;

/** The kind a fault schema parses (its `kind` literal). */
function kindOf(schema: z.ZodObject): FaultKind {
  return (schema.shape.kind as z.ZodLiteral<FaultKind>).value;
}

/** The fault kinds a family draws, in its schemas' order. */
export function kindsOf(family: FaultFamily): FaultKind[] {
  return FAULT_FAMILIES[family].schemas.map(kindOf);
}

/** The family of every kind, from the families' schemas. */
const FAMILY_OF = new Map<FaultKind, FaultFamily>(FAMILIES.flatMap((f) => f.schemas.map((s) => [kindOf(s), f.family] as const)));

export function familyOf(kind: FaultKind): FaultFamily {
  return FAMILY_OF.get(kind)!;
}

/** The package of a kind's family, taking any fault (each package narrows to its own kinds). */
export function packageOf(kind: FaultKind): FaultPackage<Fault> {
  return FAULT_FAMILIES[familyOf(kind)] as unknown as FaultPackage<Fault>;
}

/** Strikes one fault now and returns what it changed (filled in as the run goes on). */
export function applyFault(world: FaultWorld, fault: Fault): Exposure {
  const exposure = new Exposure();
  world.trace.record({ t: world.kernel.now, actor: 'nemesis', op: fault.kind, args: fault });
  packageOf(fault.kind).apply(world, fault, exposure);
  return exposure;
}

/** The liveness phase: every family ends what it still has in effect. */
export function healAllFaults(world: FaultWorld): void {
  for (const name of FAULT_FAMILY_NAMES) FAULT_FAMILIES[name].healAll(world);
}

export interface FaultGeneratorOptions {
  readonly count: number;
  /** The safety phase: a fault's span is drawn against it, and nothing starts after it. */
  readonly safetyMs: number;
  /**
   * Faults start in [0, startWithinMs) (default: the whole safety phase). A row whose safety phase
   * outlasts its traffic, so that a fault can outlast a timeout, still strikes while the traffic runs.
   */
  readonly startWithinMs?: number;
  readonly config: SimSettings;
  /** Draw only from these families (default: every family that can change something here). */
  readonly families?: readonly FaultFamily[];
}

/** The families a swarm or explore draws when none are named (see `FaultPackage.drawnByDefault`). */
const DEFAULT_FAMILIES: readonly FaultFamily[] = FAULT_FAMILY_NAMES.filter((f) => (FAULT_FAMILIES[f] as { drawnByDefault?: boolean }).drawnByDefault !== false);

/** The families that can change something in a configuration (only those are drawn); by
 * default the families drawn by default. */
export function applicableFamilies(config: SimSettings, families: readonly FaultFamily[] = DEFAULT_FAMILIES): FaultFamily[] {
  return families.filter((f) => FAULT_FAMILIES[f].applicable(config));
}

/** A seeded fault schedule (swarm testing): each family and time drawn from the rng. */
export function generateFaults(rng: Rng, o: FaultGeneratorOptions): Fault[] {
  const families = applicableFamilies(o.config, o.families);
  if (families.length === 0) return [];
  const t = o.config.topology;
  const crashed = new Set<string>();
  const consumers = Array.from({ length: o.config.workload.consumers }, (_, i) => `consumer-${i}`);
  const faults: Fault[] = [];
  for (let i = 0; i < o.count; i++) {
    const family = rng.pick(families);
    const ctx: DrawContext = {
      config: o.config,
      at: rng.int(0, Math.max(0, Math.min(o.startWithinMs ?? o.safetyMs, o.safetyMs) - 1)),
      safetyMs: o.safetyMs,
      zones: t.zones,
      nodes: t.zones.map((z) => nodeName(t.kind, t.zones, z)),
      consumers: consumers.filter((c) => !crashed.has(c)),
      crashed: (a) => crashed.add(a),
    };
    faults.push(...(FAULT_FAMILIES[family] as unknown as FaultPackage<Fault>).generate(rng.stream(`${i}`), ctx));
  }
  // A restart drawn past the safety phase is left to the liveness phase, which heals everything.
  return faults.filter((f) => f.at < o.safetyMs).sort((a, b) => a.at - b.at);
}

/** Actors a configuration starts (consumers may also be restarted in the liveness phase). */
function actorNames(config: SimSettings): { producers: string[]; consumers: string[] } {
  const w = config.workload;
  return {
    producers: Array.from({ length: w.producers }, (_, i) => `producer-${i}`),
    consumers: Array.from({ length: w.consumers }, (_, i) => `consumer-${i}`),
  };
}

/** Problems with the fault schedule of a configuration: faults of another topology, targets that do not exist, faults after the safety phase. */
export function faultScheduleProblems(config: SimSettings & { readonly faults: readonly Fault[] }): string[] {
  const t = config.topology;
  const { producers, consumers } = actorNames(config);
  const actors = new Set([...producers, ...consumers]);
  const nodes = t.zones.map((z) => nodeName(t.kind, t.zones, z));
  const problems: string[] = [];
  config.faults.forEach((f, i) => {
    const where = `faults.${i} (${f.kind})`;
    const pkg = packageOf(f.kind);
    if (pkg.requiresTopology && pkg.requiresTopology !== t.kind) problems.push(`${where}: only on topology ${pkg.requiresTopology}; this one is ${t.kind}`);
    const targets = pkg.targets(f);
    for (const z of targets.zones ?? []) if (!t.zones.includes(z)) problems.push(`${where}: no zone ${JSON.stringify(z)}; zones are ${t.zones.join(', ')}`);
    for (const a of targets.actors ?? []) if (!actors.has(a)) problems.push(`${where}: no actor ${JSON.stringify(a)}; actors are ${[...actors].join(', ')}`);
    for (const c of targets.clocks ?? []) {
      if (!actors.has(c) && !nodes.includes(c)) problems.push(`${where}: no actor or node ${JSON.stringify(c)}; nodes are ${nodes.join(', ')}`);
    }
    if (f.kind === 'client-failover' && !config.network.clientFailover) {
      problems.push(`${where}: network.clientFailover is false (the client connect builds never leaves its node); set it to true to simulate a failover client`);
    }
    if (f.at >= config.phases.safetyMs) problems.push(`${where}: at ${f.at} ms is not inside the safety phase (${config.phases.safetyMs} ms)`);
  });
  return problems;
}

/** Faults as bands in a picture of the run. */
export function faultBands(faults: readonly { readonly t: number; readonly fault: Fault }[], config: SimSettings, livenessStart: number, end: number): Band[] {
  const sorted = [...faults].sort((a, b) => a.t - b.t);
  const instant = Math.max(1, (end - (sorted[0]?.t ?? end)) / 400);
  const bands: Band[] = [];
  sorted.forEach(({ t, fault }, index) => {
    const ctx: BandContext = { config, faults: sorted, index, livenessStart, instant };
    const band = packageOf(fault.kind).band(fault, t, ctx);
    if (band) bands.push(band);
  });
  return bands;
}

export type { DrawContext, FaultPackage };
