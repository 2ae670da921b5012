import { Rng } from '../../sim/kernel/rng.js';
import { networkLag, type SimSettings } from '../../sim/settings/settings.js';
import { carriesReplicatedRequest } from '../processes/dynomite-peer-message.js';
import type { LinkDelays } from '../processes/link-proxy.js';

/**
 * The configuration's network on a real Dynomite's peer links, drawn as the simulator draws it: a
 * request a node sends a peer waits one link latency (latencyBaseMs plus an exponential jitter), and a
 * replicated one (a write or a script) an exponential replication lag of the configured mean on top
 * (plus a lag spike at its probability); a read sent for a quorum vote and the peer's reply wait one
 * latency. Loopback adds its own fraction of a millisecond on top.
 *
 * Differences remain. The simulator draws a request's lag once for all its copies (they leave
 * together), the proxies draw it per link: a DC_QUORUM write, answered by the first peer, then waits
 * for the shorter of two lags. Delays are drawn per chunk read, and Node's timers wait at least a
 * millisecond. Client connections are not delayed (they reach their node directly).
 */
export function peerLinkDelays(seed: string, network: SimSettings['network']): LinkDelays {
  const rng = new Rng(seed, 'real-twin/peer-links');
  const lag = networkLag(network);
  const latency = () => network.latencyBaseMs + rng.exponential(network.latencyJitterMs);
  return {
    upstream: (chunk) => latency() + (carriesReplicatedRequest(chunk) ? rng.exponential(lag.meanMs) + (rng.chance(lag.spikeProbability) ? lag.spikeMs : 0) : 0),
    downstream: () => latency(),
  };
}
