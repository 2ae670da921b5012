import type { SimConfigInput } from '../sim/config.js';

/**
 * What `npm start` tells: the same workload, replication lag and a zone failure with a client
 * failover, first on Dyno-queues v1 (legacy), then on the atomic mode; then the same pair with a
 * consumer whose clock runs ahead, where only server time keeps leases honest.
 */
const base = (mode: 'legacy' | 'atomic', extra: Partial<SimConfigInput> = {}): SimConfigInput => ({
  seed: 'story',
  topology: { kind: 'dynomite', zones: ['a', 'b', 'c'], quorumConsistency: 'DC_QUORUM', nonQuorumConsistency: 'DC_ONE' },
  queue: { mode, unackTimeoutMs: 2_000, reaperIntervalMs: 250 },
  network: { lagMeanMs: 20, lagSpikeProbability: 0.02, lagSpikeMs: 500 },
  workload: { messages: 300, producers: 3, rate: 50, consumers: 6, consumerBatch: 5, processingMeanMs: 150, lateAckProbability: 0.02, lateAckMs: 2_500 },
  faults: [
    { at: 2_000, kind: 'crash-node', zone: 'b', loseUnreplicated: false },
    { at: 6_000, kind: 'restart-node', zone: 'b' },
  ],
  phases: { safetyMs: 8_000, livenessMs: 60_000 },
  ...extra,
});

const skew: SimConfigInput['faults'] = [{ at: 0, kind: 'clock-skew', target: 'consumer-3', offsetMs: 1_900 }];

export const DEFAULT_STORY: readonly { title: string; config: SimConfigInput }[] = [
  { title: 'legacy (Dyno-queues v1): lag, zone b crashes at 2 s and returns at 6 s', config: base('legacy') },
  { title: 'atomic: the same workload and faults', config: base('atomic') },
  { title: 'legacy with a consumer clock 1.9 s ahead (lease 2 s)', config: base('legacy', { faults: skew }) },
  { title: 'atomic with the same skew, client time', config: base('atomic', { faults: skew }) },
  {
    title: 'atomic with the same skew, server time',
    config: base('atomic', { faults: skew, queue: { mode: 'atomic', unackTimeoutMs: 2_000, reaperIntervalMs: 250, serverTime: true } }),
  },
];
