import { z } from 'zod';
import { ms, zone } from './faults/atoms.js';
import { faultSchema } from './faults/index.js';

const consistency = z.enum(['DC_ONE', 'DC_QUORUM', 'DC_SAFE_QUORUM']);

export { faultSchema, type Fault } from './faults/index.js';

export const simConfigSchema = z
  .object({
    seed: z.string().min(1).default('1'),
    topology: z
      .object({
        kind: z.enum(['dynomite', 'primary-replica']).default('dynomite'),
        zones: z.array(zone).min(1).max(9).default(['a', 'b', 'c']),
        /** Dynomite consistency of the quorum and non-quorum connections. */
        quorumConsistency: consistency.default('DC_QUORUM'),
        nonQuorumConsistency: consistency.default('DC_ONE'),
        /** primary-replica: Sentinel's delay before promoting a replica. */
        failoverDelayMs: ms.default(5_000),
      })
      .strict()
      .default({ kind: 'dynomite', zones: ['a', 'b', 'c'], quorumConsistency: 'DC_QUORUM', nonQuorumConsistency: 'DC_ONE', failoverDelayMs: 5_000 }),
    queue: z
      .object({
        mode: z.enum(['atomic', 'legacy']).default('atomic'),
        unackTimeoutMs: ms.min(1).default(5_000),
        reaperIntervalMs: ms.min(1).default(1_000),
        serverTime: z.boolean().default(false),
        durable: z.object({ replicas: z.number().int().positive(), timeoutMs: ms.min(1) }).strict().optional(),
        sharding: z.enum(['round-robin', 'hash']).default('round-robin'),
      })
      .strict()
      .default({ mode: 'atomic', unackTimeoutMs: 5_000, reaperIntervalMs: 1_000, serverTime: false, sharding: 'round-robin' }),
    network: z
      .object({
        latencyBaseMs: z.number().nonnegative().default(0.5),
        latencyJitterMs: z.number().nonnegative().default(0.5),
        lagMeanMs: z.number().nonnegative().default(5),
        lagSpikeProbability: z.number().min(0).max(1).default(0.01),
        lagSpikeMs: ms.default(200),
        requestTimeoutMs: ms.min(1).default(1_000),
        clientFailover: z.boolean().default(true),
      })
      .strict()
      .default({
        latencyBaseMs: 0.5,
        latencyJitterMs: 0.5,
        lagMeanMs: 5,
        lagSpikeProbability: 0.01,
        lagSpikeMs: 200,
        requestTimeoutMs: 1_000,
        clientFailover: true,
      }),
    workload: z
      .object({
        messages: z.number().int().nonnegative().max(10_000_000).default(200),
        producers: z.number().int().min(1).default(3),
        /** Messages per second per producer. */
        rate: z.number().positive().default(100),
        batch: z.number().int().min(1).max(10_000).default(1),
        maxDelayMs: ms.default(0),
        maxPriority: z.number().int().min(0).max(99).default(0),
        consumers: z.number().int().min(1).default(3),
        consumerBatch: z.number().int().min(1).max(10_000).default(5),
        pollWaitMs: ms.default(100),
        /** The queue's long-poll step while a pop waits (the queue's pollInterval). */
        pollIntervalMs: ms.min(1).default(10),
        processingMeanMs: z.number().nonnegative().default(10),
        crashBeforeAckProbability: z.number().min(0).max(1).default(0),
        lateAckProbability: z.number().min(0).max(1).default(0),
        lateAckMs: ms.default(0),
      })
      .strict()
      .default({
        messages: 200,
        producers: 3,
        rate: 100,
        batch: 1,
        maxDelayMs: 0,
        maxPriority: 0,
        consumers: 3,
        consumerBatch: 5,
        pollWaitMs: 100,
        pollIntervalMs: 10,
        processingMeanMs: 10,
        crashBeforeAckProbability: 0,
        lateAckProbability: 0,
        lateAckMs: 0,
      }),
    faults: z.array(faultSchema).default([]),
    phases: z
      .object({ safetyMs: ms.min(1).default(10_000), livenessMs: ms.default(60_000) })
      .strict()
      .default({ safetyMs: 10_000, livenessMs: 60_000 }),
    checker: z.object({ recoveryBoundMs: ms.default(5_000) }).strict().default({ recoveryBoundMs: 5_000 }),
    /** Keep the trace lines in memory (to write them out); the hash is computed either way. */
    keepTrace: z.boolean().default(false),
  })
  .strict()
  .refine((c) => c.topology.kind !== 'dynomite' || (!c.queue.serverTime && !c.queue.durable), {
    message: 'serverTime and durable are refused on Dynomite (each replica re-runs scripts with its own clock; there is no WAIT): use topology primary-replica',
    path: ['queue'],
  });

export type SimConfigInput = z.input<typeof simConfigSchema>;
export type SimConfig = z.output<typeof simConfigSchema>;

export function parseSimConfig(input: unknown): SimConfig {
  return simConfigSchema.parse(input);
}
