import type { SimConfigInput } from './config.js';
import type { Fault } from './config.js';
import { generateFaults } from './faults.js';
import { Rng } from './rng.js';

/** A named configuration of the guarantees table: everything but the seed and its faults. */
export interface NamedConfiguration {
  readonly name: string;
  readonly description: string;
  /** Seeded fault schedule: every kind (swarm), client-side kinds only (client), or none. */
  readonly faults: 'swarm' | 'client' | 'none';
  readonly config: SimConfigInput;
}

const ZONES = ['a', 'b', 'c'];
const CONSUMERS = ['consumer-0', 'consumer-1', 'consumer-2'];

const workload = {
  messages: 60,
  producers: 3,
  rate: 40,
  consumers: 3,
  consumerBatch: 3,
  processingMeanMs: 30,
  crashBeforeAckProbability: 0.03,
  lateAckProbability: 0.05,
  lateAckMs: 1_500,
};
const phases = { safetyMs: 3_000, livenessMs: 30_000 };
const queue = { unackTimeoutMs: 1_000, reaperIntervalMs: 200 };

function dynomite(mode: 'legacy' | 'atomic', quorum: 'DC_ONE' | 'DC_QUORUM' | 'DC_SAFE_QUORUM', extra: object = {}): SimConfigInput {
  return {
    topology: { kind: 'dynomite', zones: ZONES, quorumConsistency: quorum, nonQuorumConsistency: 'DC_ONE' },
    queue: { mode, ...queue, ...extra },
    workload,
    phases,
  };
}

function primaryReplica(mode: 'legacy' | 'atomic', extra: object = {}): SimConfigInput {
  return {
    topology: { kind: 'primary-replica', zones: ZONES, failoverDelayMs: 1_000 },
    queue: { mode, ...queue, ...extra },
    workload,
    phases,
  };
}

/** Faults that strike clients and clocks but leave the store and the network alone. */
const CLIENT_FAULTS: readonly Fault['kind'][] = ['crash-client', 'pause-client', 'clock-skew', 'clock-jump', 'lag-spike'];

/** The configurations the guarantees table measures. */
export const CONFIGURATIONS: readonly NamedConfiguration[] = [
  { name: 'dynomite/DC_QUORUM/legacy/no-faults', description: 'Dyno v1 on Dynomite, quorum writes, no faults', faults: 'none', config: dynomite('legacy', 'DC_QUORUM') },
  { name: 'dynomite/DC_QUORUM/atomic/no-faults', description: 'atomic mode on Dynomite, quorum writes, no faults', faults: 'none', config: dynomite('atomic', 'DC_QUORUM') },
  { name: 'primary-replica/legacy/no-faults', description: 'Dyno v1 on one Redis primary, no faults', faults: 'none', config: primaryReplica('legacy') },
  { name: 'primary-replica/atomic/no-faults', description: 'atomic mode on one Redis primary, no faults', faults: 'none', config: primaryReplica('atomic') },
  { name: 'dynomite/DC_ONE/legacy/swarm', description: 'Dyno v1, DC_ONE everywhere, random faults', faults: 'swarm', config: dynomite('legacy', 'DC_ONE') },
  { name: 'dynomite/DC_ONE/atomic/swarm', description: 'atomic, DC_ONE everywhere, random faults', faults: 'swarm', config: dynomite('atomic', 'DC_ONE') },
  { name: 'dynomite/DC_QUORUM/legacy/swarm', description: 'Dyno v1 as deployed (quorum + local prefetch), random faults', faults: 'swarm', config: dynomite('legacy', 'DC_QUORUM') },
  { name: 'dynomite/DC_QUORUM/atomic/swarm', description: 'atomic, quorum writes, random faults', faults: 'swarm', config: dynomite('atomic', 'DC_QUORUM') },
  { name: 'dynomite/DC_SAFE_QUORUM/atomic/swarm', description: 'atomic, safe quorum, random faults', faults: 'swarm', config: dynomite('atomic', 'DC_SAFE_QUORUM') },
  {
    name: 'dynomite/DC_QUORUM/atomic+server-time/swarm',
    description: 'atomic with server time, quorum writes, random faults',
    faults: 'swarm',
    config: dynomite('atomic', 'DC_QUORUM', { serverTime: true }),
  },
  { name: 'primary-replica/legacy/swarm', description: 'Dyno v1 on a primary with replicas and failover, random faults', faults: 'swarm', config: primaryReplica('legacy') },
  { name: 'primary-replica/atomic/swarm', description: 'atomic on a primary with replicas and failover, random faults', faults: 'swarm', config: primaryReplica('atomic') },
  {
    name: 'primary-replica/atomic+server-time+durable/swarm',
    description: 'atomic, server time, WAIT 1 replica, random faults',
    faults: 'swarm',
    config: primaryReplica('atomic', { serverTime: true, durable: { replicas: 1, timeoutMs: 500 } }),
  },
  { name: 'primary-replica/legacy/client-faults', description: 'Dyno v1 on a primary; consumer crashes, pauses, clock skew and jumps, lag spikes', faults: 'client', config: primaryReplica('legacy') },
  { name: 'primary-replica/atomic/client-faults', description: 'atomic (client time) on a primary; client-side faults only', faults: 'client', config: primaryReplica('atomic') },
  {
    name: 'primary-replica/atomic+server-time/client-faults',
    description: 'atomic with server time on a primary; client-side faults only',
    faults: 'client',
    config: primaryReplica('atomic', { serverTime: true }),
  },
  {
    name: 'dynomite/DC_QUORUM/atomic+server-time/client-faults',
    description: 'atomic with server time on Dynomite (quorum writes); client-side faults only',
    faults: 'client',
    config: dynomite('atomic', 'DC_QUORUM', { serverTime: true }),
  },
  { name: 'dynomite/DC_QUORUM/legacy/client-faults', description: 'Dyno v1 on Dynomite; client-side faults only', faults: 'client', config: dynomite('legacy', 'DC_QUORUM') },
];

/** The concrete run of a named configuration for one seed: its fault schedule comes from the seed. */
export function configurationRun(named: NamedConfiguration, seed: string, faultCount = 3): SimConfigInput {
  const faults =
    named.faults === 'none'
      ? []
      : generateFaults(new Rng(seed, 'swarm-faults'), {
          count: faultCount,
          safetyMs: phases.safetyMs,
          zones: ZONES,
          consumers: CONSUMERS,
          ...(named.faults === 'client' ? { kinds: CLIENT_FAULTS } : {}),
        });
  return { ...named.config, seed, faults };
}
