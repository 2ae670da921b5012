import { SCRIPT_MODES } from '../../redis/script-mode.js';
import * as z from 'zod';
import { fractionalMs, ms, SCENARIO_LIMITS, zone } from './atoms.js';
import { workloadProfileFields } from './workload-profile.js';
import { DEFAULT_JUDGE_SETTINGS } from '../../model/history-file.js';

/** The checker's recovery bound unless a configuration sets one: the judge's own default. */
const RECOVERY_BOUND_MS = DEFAULT_JUDGE_SETTINGS.recoveryBoundMs;
import { PERSISTENCE } from './persistence.js';

const consistency = z.enum(['DC_ONE', 'DC_QUORUM', 'DC_SAFE_QUORUM']);

/**
 * The sections of a configuration other than its fault schedule, in the order a configuration lists
 * them: what the simulator's parts (faults, workloads, the world) are built from. The whole
 * configuration (these and the fault schedule) is `simConfigSchema` in run/config.ts.
 */
export const settingsFields = {
    seed: z.string().min(1).default('1').describe('seed of every random choice in the run (default "1"); the same seed replays the same run'),
    topology: z
      .object({
        kind: z.enum(['dynomite', 'primary-replica']).default('dynomite').describe('dynomite: one replica per zone, every replica takes writes; primary-replica: Redis with Sentinel, the primary in the first zone (default dynomite)'),
        zones: z.array(zone).min(1).max(9).default(['a', 'b', 'c']).describe('zone (rack) names, unique; one node, one queue shard and at least one consumer per zone (default a, b, c)'),
        /** Dynomite consistency of the quorum and non-quorum connections. */
        quorumConsistency: consistency.default('DC_QUORUM').describe('Dynomite consistency of the quorum connection (default DC_QUORUM)'),
        nonQuorumConsistency: consistency.default('DC_ONE').describe('Dynomite consistency of the non-quorum connection (default DC_ONE)'),
        /** primary-replica: Sentinel's down-after-milliseconds; the promotion itself takes SENTINEL_PROMOTION_MS more. */
        failoverDelayMs: ms.default(5_000).describe("primary-replica: Sentinel's down-after-milliseconds, ms a primary must be down before a failover starts; the replica is promoted about 1.2 s later, even if the old primary came back meanwhile (default 5000)"),
        fullSyncDelayMs: ms
          .max(60_000)
          .refine((v) => v % 1000 === 0, { message: 'whole seconds only (Redis takes repl-diskless-sync-delay in seconds)' })
          .optional()
          .describe(
            "primary-replica: Redis's repl-diskless-sync-delay, in ms (whole seconds; default 5000, Redis's default): after a restart of the primary, or of a replica, each replica concerned resynchronises in full only this long after it; until then WAIT does not count it and it receives no writes",
          ),
        persistence: z
          .enum(PERSISTENCE)
          .optional()
          .describe(
            "what each node's disk keeps for a restart after a process-crash, process-crash-failover or power-loss fault: none — nothing (no AOF, no snapshot: it restarts empty); aof-always — every write it acknowledged; aof-everysec — after a killed process every write it acknowledged (written to the file before the reply), after a power loss only what the last whole-second fsync reached (default none; node-crash faults say themselves what a node loses)",
          ),
        keepEmptyPrimaryDown: z
          .boolean()
          .optional()
          .describe('primary-replica: the supervisor does not restart a primary whose disk kept nothing until Sentinel has promoted a replica; it then rejoins as a replica (default false: restarted at once, and its replicas resync from it, empty)'),
      })
      .strict()
      .default({ kind: 'dynomite', zones: ['a', 'b', 'c'], quorumConsistency: 'DC_QUORUM', nonQuorumConsistency: 'DC_ONE', failoverDelayMs: 5_000 })
      .describe("where the queue runs: the store's topology and zones"),
    queue: z
      .object({
        mode: z.enum(['atomic', 'legacy']).default('atomic').describe('atomic: one Lua script per operation; legacy: Dyno-queues\' per-id commands (default atomic)'),
        unackTimeoutMs: ms.min(1).default(5_000).describe('lease of a popped message in ms before the reaper may re-queue it (default 5000)'),
        reaperIntervalMs: ms.min(1).default(1_000).describe('ms between reaper passes of each consumer (default 1000)'),
        serverTime: z.boolean().default(false).describe('atomic: scripts read the server clock instead of the client\'s (default false)'),
        durable: z
          .object({
            replicas: z.number().int().positive().describe('replicas that must acknowledge each write (WAIT); at most zones − 1'),
            timeoutMs: ms.min(1).describe('WAIT timeout in ms'),
          })
          .strict()
          .optional()
          .describe('primary-replica only: every write waits for replicas (default: not durable)'),
        sharding: z.enum(['round-robin', 'hash']).default('round-robin').describe('how pushes pick a shard: round-robin over zones or a hash of the id (default round-robin)'),
      })
      .strict()
      .default({ mode: 'atomic', unackTimeoutMs: 5_000, reaperIntervalMs: 1_000, serverTime: false, sharding: 'round-robin' })
      .describe("the queue's options under test"),
    network: z
      .object({
        profile: z
          .enum(['lan', 'wan'])
          .default('lan')
          .describe(
            "which network the replicas share: lan — one region (5 ms mean replication lag, no lag spikes; loopback, where the real Dynomite of DYNOMITE.md was measured, replicates in well under 1 ms, so the real Dynomite twins add this lag on their peer links); wan — replicas far apart, 1 % of replicated requests delayed by a 200 ms spike (default lan). lagMeanMs, lagSpikeProbability and lagSpikeMs override the profile's values",
          ),
        latencyBaseMs: fractionalMs.default(0.5).describe('one-way network latency in ms (default 0.5)'),
        latencyJitterMs: fractionalMs.default(0.5).describe('random extra latency in ms: exponential with this mean (default 0.5)'),
        lagMeanMs: fractionalMs.optional().describe("mean replication lag in ms, shared by the copies of one request (default: the profile's, 5 on lan and wan)"),
        lagSpikeProbability: z
          .number()
          .min(0)
          .max(1)
          .optional()
          .describe("chance that one replicated request (all its copies) is delayed by lagSpikeMs (default: the profile's, 0 on lan, 0.01 on wan)"),
        lagSpikeMs: ms.optional().describe("extra lag of a spiked request in ms (default: the profile's, 200)"),
        requestTimeoutMs: ms
          .min(1)
          .default(5_000)
          .describe("client command timeout in ms; a timed-out call has an unknown outcome (default 5000, connect's commandTimeout)"),
        clientFailover: z
          .boolean()
          .default(false)
          .describe(
            "which client is simulated: false — the one dynoq's connect builds by default, one node that it never leaves (with that node down every call fails); true — a zone-failover client (connect's dynomite.failover, or Dyno's own client) that moves to the next zone's node when its node refuses the connection; client-failover faults need it (default false)",
          ),
      })
      .strict()
      .default({ profile: 'lan', latencyBaseMs: 0.5, latencyJitterMs: 0.5, requestTimeoutMs: 5_000, clientFailover: false })
      .describe('the network profile, latency, replication lag, and which client is simulated'),
    workload: z
      .object({
        messages: z.number().int().nonnegative().max(SCENARIO_LIMITS.messages).default(200).describe('messages pushed in all (default 200)'),
        producers: z.number().int().min(1).max(SCENARIO_LIMITS.actors).default(3).describe('producers (producer-0 …), spread over zones in turn (default 3)'),
        /** Messages per second per producer. */
        rate: z.number().positive().max(SCENARIO_LIMITS.rate).default(100).describe('messages per second per producer (default 100)'),
        batch: z.number().int().min(1).max(SCENARIO_LIMITS.batch).default(1).describe('messages per push call (default 1)'),
        ...workloadProfileFields,
        consumers: z.number().int().min(1).max(SCENARIO_LIMITS.actors).default(3).describe('consumers (consumer-0 …); consumer i pops zone i mod zones; at least one per zone (default 3)'),
        consumerBatch: z.number().int().min(1).max(SCENARIO_LIMITS.batch).default(5).describe('messages per pop (default 5)'),
        pollWaitMs: ms.default(100).describe('how long a pop waits for messages in ms (default 100)'),
        /** The queue's long-poll step while a pop waits (the queue's pollInterval). */
        pollIntervalMs: ms.min(1).default(10).describe('the queue\'s long-poll step in ms while a pop waits (default 10)'),
        processingMeanMs: fractionalMs.default(10).describe('mean time a consumer works on a message before acking, in ms (default 10)'),
        crashBeforeAckProbability: z.number().min(0).max(1).default(0).describe('chance a consumer crashes holding a message, before its ack; it restarts as <name>-restarted (default 0)'),
        lateAckProbability: z.number().min(0).max(1).default(0).describe('chance a consumer acks lateAckMs after its work (default 0)'),
        lateAckMs: ms.default(0).describe('how late a late ack comes, in ms (default 0)'),
      })
      .strict()
      .default({
        messages: 200,
        producers: 3,
        rate: 100,
        batch: 1,
        profile: 'basic',
        consumers: 3,
        consumerBatch: 5,
        pollWaitMs: 100,
        pollIntervalMs: 10,
        processingMeanMs: 10,
        crashBeforeAckProbability: 0,
        lateAckProbability: 0,
        lateAckMs: 0,
      })
      .describe("producers, consumers and what they do: a named profile, and fields that override it"),
    phases: z
      .object({
        safetyMs: ms.min(1).default(10_000).describe('ms of workload and faults (default 10000)'),
        livenessMs: ms.default(60_000).describe('ms after every fault healed in which each message must be delivered and every un-acked delivery recovered (default 60000)'),
        livenessHeals: z
          .array(
            z
              .object({
                at: ms.describe('when it answers again, in ms after the start of the run (at or after the safety phase)'),
                zone: zone.describe('the zone whose process it is'),
                process: z.enum(['node', 'backend']).describe("node: the zone's store node; backend: the redis behind its Dynomite node (dynomite only)"),
              })
              .strict(),
          )
          .max(SCENARIO_LIMITS.faults)
          .optional()
          .describe('restarts of the liveness phase that took time, as a real twin recorded them: each process stays down past the liveness start until its `at` (default none: every fault heals at the liveness start)'),
      })
      .strict()
      .default({ safetyMs: 10_000, livenessMs: 60_000 })
      .describe("the safety phase (workload and faults), then the liveness phase (healed, recovery required)"),
    checker: z
      .object({ recoveryBoundMs: ms.default(RECOVERY_BOUND_MS).describe(`allowed recovery after lease end + reaper interval before un-ack recovery counts as violated, in ms (default ${RECOVERY_BOUND_MS})`) })
      .strict()
      .default({ recoveryBoundMs: RECOVERY_BOUND_MS })
      .describe("how the history checker judges the run"),
    scripts: z
      .enum(SCRIPT_MODES)
      .optional()
      .describe(
        "how the simulated servers run the queue's scripts: twin — their JavaScript twins (fast); lua — Redis's own Lua, as Redis runs them; compare — the Lua, and each twin beside it on a copy of the script's keys, a difference ending the run as a finding (default: twin, or DYNOQ_SCRIPTS). Not part of the trace: every mode gives the same trace hash",
      ),
    /** Keep the trace lines in memory (to write them out); the hash is computed either way. */
    keepTrace: z.boolean().default(false).describe('keep the trace lines in memory to write them out; the hash is computed either way (default false)'),
};

const simSettingsSchema = z.object(settingsFields);
/** A parsed configuration without its fault schedule (a whole `SimConfig` is one). */
export type SimSettings = z.output<typeof simSettingsSchema>;

/** The lag settings of each network profile (`network.profile`); a field set in the configuration wins. */
const NETWORK_PROFILES = {
  lan: { lagMeanMs: 5, lagSpikeProbability: 0, lagSpikeMs: 200 },
  wan: { lagMeanMs: 5, lagSpikeProbability: 0.01, lagSpikeMs: 200 },
} as const;

/** The replication lag a configuration runs with: its profile's, with the fields it sets over them. */
export function networkLag(network: SimSettings['network']): { meanMs: number; spikeProbability: number; spikeMs: number } {
  const p = NETWORK_PROFILES[network.profile];
  return {
    meanMs: network.lagMeanMs ?? p.lagMeanMs,
    spikeProbability: network.lagSpikeProbability ?? p.lagSpikeProbability,
    spikeMs: network.lagSpikeMs ?? p.lagSpikeMs,
  };
}

