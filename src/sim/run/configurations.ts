import { parseFaults, parseSimConfig, type SimConfig, type SimConfigInput } from './config.js';
import { applicableFamilies, FAULT_FAMILIES, generateFaults, type FaultFamily } from '../faults/index.js';
import { Rng } from '../kernel/rng.js';
import { PROFILES, type ProfileName } from '../settings/workload-profile.js';

/** How a row draws its faults: none, one family alone (its minimal cause shows), or every family (swarm). */
export type FaultDraw = 'none' | 'swarm' | FaultFamily;

/** A named configuration of the guarantees table: everything but the seed and its faults. */
export interface NamedConfiguration {
  readonly name: string;
  /** The workload profile the row's clients run. */
  readonly profile: ProfileName;
  /** The queue and store set-up, without the faults. */
  readonly setup: string;
  readonly description: string;
  readonly faults: FaultDraw;
  /** Faults start in [0, this) ms; absent: anywhere in the safety phase. */
  readonly faultsStartWithinMs?: number;
  readonly config: SimConfigInput;
}

const ZONES = ['a', 'b', 'c'];

/**
 * The table's workload: two competing consumers per zone (each with its reaper), pushes spread over
 * the whole safety phase, a few consumers crashing before an ack and a few acking late.
 */
const TABLE_WORKLOAD = {
  messages: 90,
  producers: 3,
  rate: 8,
  consumers: 6,
  consumerBatch: 3,
  processingMeanMs: 30,
  crashBeforeAckProbability: 0.02,
  lateAckProbability: 0.05,
  lateAckMs: 1_500,
} as const;
const TABLE_PHASES = { safetyMs: 4_000, livenessMs: 30_000 } as const;
/**
 * The node-stall rows: pauses start while the traffic runs (the first 4 s, as in every row) but the
 * safety phase lasts 12 s, so that a pause can outlast Dynomite's 5 s datastore and 5.2 s peer-read
 * timeouts (DYNOMITE.md "Failures and repair"). In 4 s no pause ever reached them: the liveness phase
 * resumes every paused process, and the rows measured only requests held, never requests timed out.
 */
const STALL_ROW = { phases: { safetyMs: 12_000, livenessMs: TABLE_PHASES.livenessMs }, faultsStartWithinMs: TABLE_PHASES.safetyMs } as const;
const QUEUE = { unackTimeoutMs: 1_000, reaperIntervalMs: 200 } as const;
/**
 * The table's network and client: one region (the LAN profile, no lag spikes: the network the real
 * Dynomite of DYNOMITE.md was measured on) and the client dynoq ships (`connect`: one node, never
 * moves, 5 s command timeout). Rows about failover say otherwise (FAILOVER_CLIENT).
 */
const NETWORK = { profile: 'lan', clientFailover: false } as const;
/** The client-failover rows: a zone-failover client (connect's `dynomite.failover`, or Dyno's own). */
const FAILOVER_CLIENT = { network: { ...NETWORK, clientFailover: true } } as const;
const FAILOVER_DELAY_MS = 1_000;
/** Faults drawn per run: for one family alone, and for the swarm. */
const FAULTS_PER_FAMILY_RUN = 2;
const FAULTS_PER_SWARM_RUN = 4;

interface Setup {
  readonly name: string;
  readonly description: string;
  readonly config: SimConfigInput;
}

function dynomite(variant: string, mode: 'legacy' | 'atomic', quorum: 'DC_ONE' | 'DC_QUORUM' | 'DC_SAFE_QUORUM', description: string, extra: object = {}): Setup {
  return {
    name: `dynomite/${quorum}/${variant}`,
    description,
    config: {
      topology: { kind: 'dynomite', zones: ZONES, quorumConsistency: quorum, nonQuorumConsistency: 'DC_ONE' },
      queue: { mode, ...QUEUE, ...extra },
      network: NETWORK,
      workload: TABLE_WORKLOAD,
      phases: TABLE_PHASES,
    },
  };
}

function primaryReplica(variant: string, mode: 'legacy' | 'atomic', description: string, extra: object = {}): Setup {
  return {
    name: `primary-replica/${variant}`,
    description,
    config: {
      topology: { kind: 'primary-replica', zones: ZONES, failoverDelayMs: FAILOVER_DELAY_MS },
      queue: { mode, ...QUEUE, ...extra },
      network: NETWORK,
      workload: TABLE_WORKLOAD,
      phases: TABLE_PHASES,
    },
  };
}

const S = {
  dynLegacy: dynomite('legacy', 'legacy', 'DC_QUORUM', 'Dyno v1 as deployed on Dynomite: quorum writes, local prefetch'),
  dynAtomic: dynomite('atomic', 'atomic', 'DC_QUORUM', 'atomic mode on Dynomite, quorum connection'),
  dynOneAtomic: dynomite('atomic', 'atomic', 'DC_ONE', 'atomic mode on Dynomite, DC_ONE everywhere'),
  dynSafeAtomic: dynomite('atomic', 'atomic', 'DC_SAFE_QUORUM', 'atomic mode on Dynomite, DC_SAFE_QUORUM'),
  prLegacy: primaryReplica('legacy', 'legacy', 'Dyno v1 on a Redis primary with two replicas and Sentinel-style failover'),
  prAtomic: primaryReplica('atomic', 'atomic', 'atomic mode (client time) on a Redis primary with replicas'),
  prAtomicServerTime: primaryReplica('atomic+server-time', 'atomic', 'atomic mode with server time on a Redis primary', { serverTime: true }),
  prAtomicDurable: primaryReplica('atomic+server-time+durable', 'atomic', 'atomic, server time, WAIT for 1 replica after push and ack', {
    serverTime: true,
    durable: { replicas: 1, timeoutMs: 500 },
  }),
} as const;

/** The recommended primary-replica set-up (atomic, server time, durable writes) with what keeps a crashed node's data. */
const DURABLE = { serverTime: true, durable: { replicas: 1, timeoutMs: 500 } } as const;
function withDisk(variant: string, description: string, topology: object): Setup {
  const base = primaryReplica(`atomic+server-time+durable+${variant}`, 'atomic', `atomic, server time, WAIT for 1 replica, ${description}`, DURABLE);
  return { ...base, config: { ...base.config, topology: { ...(base.config.topology as object), ...topology } } };
}
const P = {
  aofAlways: withDisk('aof-always', 'every node an AOF fsynced before each reply (appendfsync always)', { persistence: 'aof-always' }),
  aofEverysec: withDisk('aof-everysec', 'every node an AOF fsynced once a second (appendfsync everysec)', { persistence: 'aof-everysec' }),
  emptyPrimaryDown: withDisk('keep-empty-primary-down', 'no persistence, and a supervisor that keeps a primary restarting empty down until Sentinel promotes a replica', { keepEmptyPrimaryDown: true }),
} as const;

/** What a row changes in its set-ups: a longer safety phase and when its faults start, or the network and client. */
interface RowTiming {
  readonly phases?: { readonly safetyMs: number; readonly livenessMs: number };
  readonly faultsStartWithinMs?: number;
  readonly network?: { readonly profile: 'lan' | 'wan'; readonly clientFailover: boolean };
}

/**
 * The guarantees table's rows: each fault draw with the set-ups measured under it. The durable
 * set-up (atomic, server time, WAIT) is measured under every draw of its topology, so that it and the
 * set-ups with persistence that inherit its cells compete with the others on what they hold, not on
 * how many rows they have.
 */
const ROWS: readonly (readonly [FaultDraw, readonly Setup[], RowTiming?])[] = [
  ['none', [S.dynLegacy, S.dynAtomic, S.dynSafeAtomic, S.prLegacy, S.prAtomic, S.prAtomicDurable]],
  ['node-crash', [S.dynLegacy, S.dynAtomic, S.dynSafeAtomic, S.prLegacy, S.prAtomic, S.prAtomicDurable]],
  ['partition', [S.dynLegacy, S.dynAtomic, S.prAtomic, S.prAtomicDurable]],
  ['client-failover', [S.dynLegacy, S.dynAtomic], FAILOVER_CLIENT],
  ['client-crash', [S.prLegacy, S.prAtomic, S.prAtomicDurable]],
  ['client-pause', [S.prLegacy, S.prAtomic, S.prAtomicServerTime, S.prAtomicDurable]],
  // No Dynomite server-time row: the queue refuses serverTime on Dynomite (UnsupportedOnStoreError).
  ['clock', [S.prLegacy, S.prAtomic, S.prAtomicServerTime, S.prAtomicDurable]],
  // The twins: the same consumer clocks under client time and under server time.
  ['consumer-clocks', [S.prAtomic, S.prAtomicServerTime, S.prAtomicDurable]],
  ['lag-spike', [S.dynLegacy, S.dynAtomic]],
  // Dynomite only: its node and its redis are separate processes (a primary-replica node has no proxy).
  ['backend-crash', [S.dynLegacy, S.dynAtomic, S.dynSafeAtomic]],
  ['node-stall', [S.dynLegacy, S.dynAtomic, S.dynSafeAtomic], STALL_ROW],
  // A full Redis and one that evicts: the primary (the queue's only writable node) under pressure.
  ['memory-pressure', [S.prLegacy, S.prAtomic, S.prAtomicDurable]],
  ['eviction', [S.prLegacy, S.prAtomic, S.prAtomicDurable]],
  // Crashes that keep the disk, split by when the node is back: before failover, after it, or with
  // only what was fsynced. Some set-ups are measured by another's row here (SAME_RUNS).
  ['process-crash', [S.prAtomicDurable, P.aofAlways, P.emptyPrimaryDown]],
  ['process-crash-failover', [S.prAtomicDurable, P.aofAlways]],
  ['power-loss', [P.aofAlways, P.aofEverysec, P.emptyPrimaryDown]],
  ['swarm', [S.dynLegacy, S.dynAtomic, S.dynOneAtomic, S.dynSafeAtomic, S.prLegacy, S.prAtomic, S.prAtomicServerTime, S.prAtomicDurable]],
];

/** A set-up's fault draw measured by another set-up's row, because their runs are the same. */
export interface SameRuns {
  readonly setup: string;
  readonly faults: FaultDraw;
  /** The set-up whose row is measured and stands for both. */
  readonly measuredAs: string;
  /** The evidence, as the page prints it. */
  readonly why: string;
}

/**
 * Rows dropped because another row's runs are theirs: for every seed compared the simulator gives
 * both the same trace, line for line after the configuration it starts with (over the 200 seeds the
 * table runs, g0 … g199, `full` profile; test/sim/same-runs.test.ts compares a few on every run).
 */
const AOF_KILLED =
  'a killed process keeps every write it acknowledged under appendfsync everysec as under always (the file is written before the reply; only a power loss loses the unsynced second): the simulator gives both the same trace for every seed';
export const SAME_RUNS: readonly SameRuns[] = [
  { setup: P.aofEverysec.name, faults: 'process-crash', measuredAs: P.aofAlways.name, why: AOF_KILLED },
  { setup: P.aofEverysec.name, faults: 'process-crash-failover', measuredAs: P.aofAlways.name, why: AOF_KILLED },
  {
    setup: P.emptyPrimaryDown.name,
    faults: 'process-crash-failover',
    measuredAs: S.prAtomicDurable.name,
    why: 'a process down past the failover delay restarts after Sentinel has promoted a replica, so the supervisor rule that keeps an empty primary down never acts: the simulator gives both the same trace for every seed',
  },
];

function drawLabel(d: FaultDraw, timing: RowTiming | undefined): string {
  if (d === 'none') return 'no faults';
  if (d === 'swarm') return `swarm: ${FAULTS_PER_SWARM_RUN} faults of every family`;
  const label = `${FAULTS_PER_FAMILY_RUN} × ${FAULT_FAMILIES[d].description}`;
  if (!timing?.phases || timing.faultsStartWithinMs === undefined) return label;
  const s = (ms: number) => `${ms / 1_000} s`;
  return `${label}, starting in the first ${s(timing.faultsStartWithinMs)} and lasting up to the end of a ${s(timing.phases.safetyMs)} safety phase`;
}

/** The workload profiles every set-up and fault draw is measured under (`basic` keeps the row's old name). */
const TABLE_PROFILES: readonly ProfileName[] = ['basic', 'full'];

/**
 * The configurations the guarantees table measures: each set-up under each fault draw it is listed
 * for, once per profile (`…/full` for the full profile).
 */
export const CONFIGURATIONS: readonly NamedConfiguration[] = ROWS.flatMap(([faults, setups, timing]) => setups.flatMap((s) => TABLE_PROFILES.map((profile) => named(s, faults, timing, profile))));

/** One set-up under one fault draw for one workload profile. */
function named(s: Setup, faults: FaultDraw, timing: RowTiming | undefined, profile: ProfileName): NamedConfiguration {
  return {
    name: `${s.name}/${faults}${profile === 'basic' ? '' : `/${profile}`}`,
    profile,
    setup: profile === 'basic' ? s.name : `${s.name}+${profile}`,
    description: `${s.description}; ${drawLabel(faults, timing)}${timing?.network?.clientFailover ? '; clients fail over to the next zone when refused' : ''}; workload ${profile}: ${PROFILES[profile].description}`,
    faults,
    config: {
      ...s.config,
      workload: { ...TABLE_WORKLOAD, profile },
      ...(timing?.phases ? { phases: timing.phases } : {}),
      ...(timing?.network ? { network: timing.network } : {}),
    },
    ...(timing?.faultsStartWithinMs !== undefined ? { faultsStartWithinMs: timing.faultsStartWithinMs } : {}),
  };
}

/**
 * For each entry of SAME_RUNS, the configuration the table measures and the one it stands for (no
 * longer a row), for one profile: what the test and the evidence run side by side.
 */
export function sameRunsConfigurations(profile: ProfileName): readonly { readonly same: SameRuns; readonly measured: NamedConfiguration; readonly dropped: NamedConfiguration }[] {
  const setups = [...Object.values(S), ...Object.values(P)] as Setup[];
  const setup = (name: string) => setups.find((s) => s.name === name)!;
  return SAME_RUNS.map((same) => {
    const timing = ROWS.find(([d]) => d === same.faults)?.[2];
    return { same, measured: named(setup(same.measuredAs), same.faults, timing, profile), dropped: named(setup(same.setup), same.faults, timing, profile) };
  });
}

/**
 * The profile the guarantees table publishes. The `basic` configurations repeat the `full` ones'
 * information: over 80 seeds each, every property a `basic` row violated, its `full` row (the same
 * set-up and fault draw) violated too, in 45 of the 46 pairs — the exception, Dyno v1 on a primary
 * with replicas under node crashes, broke "acks are final" in 2 of 80 basic runs and none of 80 full
 * ones — and `full` exercises every property `basic` does. They stay configurations (`dynoq sim
 * --configuration`, fidelity rows, tests), measured on demand, not for the table.
 */
export const TABLE_PROFILE: ProfileName = 'full';

/** The configurations the guarantees table measures and publishes. */
export const TABLE_CONFIGURATIONS: readonly NamedConfiguration[] = CONFIGURATIONS.filter((c) => c.profile === TABLE_PROFILE);

/**
 * The concrete run of a named configuration for one seed, parsed once: its fault schedule is drawn
 * from the seed against the parsed configuration, then parsed alone and set on it.
 */
export function configurationRun(named: NamedConfiguration, seed: string): SimConfig {
  const config = parseSimConfig({ ...named.config, seed, faults: [] });
  if (named.faults === 'none') return config;
  const swarm = named.faults === 'swarm';
  const faults = generateFaults(new Rng(seed, 'swarm-faults'), {
    count: swarm ? FAULTS_PER_SWARM_RUN : FAULTS_PER_FAMILY_RUN,
    safetyMs: config.phases.safetyMs,
    ...(named.faultsStartWithinMs !== undefined ? { startWithinMs: named.faultsStartWithinMs } : {}),
    config,
    families: swarm ? applicableFamilies(config) : [named.faults],
  });
  return { ...config, faults: parseFaults(faults) };
}
