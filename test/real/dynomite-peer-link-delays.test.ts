import { afterEach, describe, expect, it } from 'vitest';
import { startDynomiteCluster, type DynomiteCluster } from '../../src/real/processes/dynomite-cluster.js';
import type { RealCluster } from '../../src/real/cluster.js';
import { startRealCluster } from '../../src/real/start-cluster.js';
import { until } from '../../src/real/processes/until.js';
import { dynomiteBinary, dynomiteRequired } from '../support/dynomite-cluster.js';
import { redisServerBinary } from '../support/redis-server.js';

const available = dynomiteBinary() !== null && redisServerBinary() !== null;
if (!available && dynomiteRequired) throw new Error('REQUIRE_DYNOMITE=1 but the Dynomite build (scripts/build-dynomite.sh) or redis-server is missing');

/** A delay far above loopback's, below the cluster's 1 s readiness probe. */
const REQUEST_DELAY_MS = 400;
/** A lag spike long enough that a write no longer waiting for it is told apart on a loaded machine. */
const SPIKE_MS = 3_000;

describe.runIf(available)("a real Dynomite's peer links carry the delays they are given", () => {
  let cluster: DynomiteCluster | RealCluster | undefined;
  afterEach(async () => {
    await cluster?.stop();
    cluster = undefined;
  });

  it('a DC_QUORUM write waits for a peer: its request crosses a delayed link; a DC_ONE write reaches the peers a delay later', async () => {
    const c = await startDynomiteCluster({ racks: 3, peerLinkDelays: { upstream: () => REQUEST_DELAY_MS } });
    cluster = c;
    const quorum = await c.client(0, 'DC_QUORUM');
    const one = await c.client(0, 'DC_ONE');
    let t = performance.now();
    expect(await quorum.set('k', 'v')).toBe('OK');
    // A lower bound only: the vote needs one peer's reply, which cannot come before its request arrives.
    expect(performance.now() - t).toBeGreaterThanOrEqual(REQUEST_DELAY_MS - 10);
    expect(await one.set('k2', 'v')).toBe('OK');
    expect(await c.backend(0).get('k2')).toBe('v');
    // The peers get it too, one delay later (bytes are held, not dropped).
    await new Promise((r) => setTimeout(r, REQUEST_DELAY_MS * 3));
    expect(await c.backend(1).get('k2')).toBe('v');
    expect(await c.backend(2).get('k2')).toBe('v');
  }, 90_000);

  it("a lag spike on a twin's loopback links: while it lasts a DC_QUORUM write waits for it, and it is taken back", async () => {
    const c = await startRealCluster({ kind: 'dynomite', zones: ['a', 'b', 'c'], quorumConsistency: 'DC_QUORUM', nonQuorumConsistency: 'DC_ONE' });
    cluster = c;
    const quorum = c.client('a', 'quorum');
    await quorum.set('warm', '1');
    c.addPeerLinkLag(SPIKE_MS);
    const t = performance.now();
    expect(await quorum.set('k', 'v')).toBe('OK');
    expect(performance.now() - t).toBeGreaterThanOrEqual(SPIKE_MS - 10);
    c.addPeerLinkLag(-SPIKE_MS);
    // Taken back: the next write reaches all three nodes sooner than the spike it no longer waits for.
    expect(await quorum.set('k3', 'v')).toBe('OK');
    await until('k3 on every node', SPIKE_MS * 0.7, async () => (await c.dumps('k3')).filter((d) => d.k3 === 'v').length === 3, 10);
  }, 90_000);

  it("a node killed right after a DC_ONE write: its copies, on their way under the delay, still reach both peers", async () => {
    cluster = await startDynomiteCluster({ racks: 3, peerLinkDelays: { upstream: () => REQUEST_DELAY_MS } });
    const one = await cluster.client(0, 'DC_ONE');
    expect(await one.set('last', 'v')).toBe('OK');
    await cluster.killNode(0);
    // The copies were in the proxies when the node died; the kernel had them, so they arrive.
    await new Promise((r) => setTimeout(r, REQUEST_DELAY_MS * 3));
    expect(await cluster.backend(1).get('last')).toBe('v');
    expect(await cluster.backend(2).get('last')).toBe('v');
  }, 90_000);
});
