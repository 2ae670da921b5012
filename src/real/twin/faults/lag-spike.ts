import type { FaultOfFamily } from '../../../sim/faults/index.js';
import type { RealMeans } from './real-means.js';

/** A spike in effect: the timer that ends it, when it began and what records its real duration. */
interface RealSpike {
  readonly extraMs: number;
  readonly timer: NodeJS.Timeout;
  readonly since: number;
  readonly healed: (durationMs: number) => void;
}

/**
 * Every replicated request a Dynomite node sends a peer (a write or a script, not a read sent for a
 * quorum vote) waits `extraMs` more in the peer-link proxies for the fault's duration, as the simulator
 * adds it to every replicated request's lag; overlapping spikes add up and end one at a time. Replies
 * are not delayed.
 */
export const lagSpike: RealMeans<FaultOfFamily<'lag-spike'>> = {
  // Spikes add up: none waits for another.
  target: (f) => `lag-spike:${f.at}`,
  problem: (f, config) =>
    config.topology.kind === 'dynomite'
      ? undefined
      : `fault lag-spike at ${f.at} ms: only Dynomite's peer links go through proxies here; a primary's replication runs on loopback, not built`,
  start(w) {
    const spikes = new Set<RealSpike>();
    const end = (spike: RealSpike, why: string) => {
      spikes.delete(spike);
      w.cluster.addPeerLinkLag(-spike.extraMs);
      spike.healed(w.now() - spike.since);
      w.log(`lag spike +${spike.extraMs} ms ends${why}`);
    };
    return {
      async strike(f) {
        w.cluster.addPeerLinkLag(f.extraMs);
        const since = w.now();
        const healed = w.struck(f, since);
        w.log(`lag spike: every replicated peer request +${f.extraMs} ms for ${f.durationMs} ms`);
        const spike: RealSpike = { extraMs: f.extraMs, since, healed, timer: setTimeout(() => end(spike, ''), f.durationMs) };
        spikes.add(spike);
      },
      async healAll() {
        for (const spike of [...spikes]) {
          clearTimeout(spike.timer);
          end(spike, ' (liveness)');
        }
      },
    };
  },
};
