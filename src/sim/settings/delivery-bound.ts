import { DYNOMITE_SETTLE_MS } from '../../queue/options.js';
import { networkLag, type SimSettings } from './settings.js';

/**
 * The delivery bound B of a configuration, in ms (docs/CHECKER.md §2.4): how long a waiting pop may go without
 * taking a free and due message of its shard. Derived from the queue's options and the topology, never
 * tuned to a row: one long-poll step, Dynomite's settle time (atomic mode: a message becomes poppable
 * `settleMs` after it is due, so that every replica has it), a replication allowance for a pop that
 * reads a replica (ten mean lags, plus one spike where the network profile has spikes: an exponential
 * lag exceeds ten means once in 22,000 writes) and two round trips with jitter.
 */
export function deliveryBound(config: SimSettings): number {
  const pollMs = config.workload.pollIntervalMs;
  const settleMs = config.topology.kind === 'dynomite' && config.queue.mode === 'atomic' && config.topology.zones.length > 1 ? DYNOMITE_SETTLE_MS : 0;
  const n = config.network;
  const lag = networkLag(n);
  const replicationMs = config.topology.zones.length > 1 ? 10 * lag.meanMs + (lag.spikeProbability > 0 ? lag.spikeMs : 0) : 0;
  const roundTripsMs = 4 * (n.latencyBaseMs + 10 * n.latencyJitterMs);
  return Math.ceil(pollMs + settleMs + replicationMs + roundTripsMs);
}
