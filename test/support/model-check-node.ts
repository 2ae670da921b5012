import type { Layout, Setup } from '../../src/testing/model-check/model-check.js';
import { world } from '../sim/fixtures.js';

/** Where the server clock starts past the simulator's epoch: off the second boundary, so that both fields of TIME matter. */
const SERVER_CLOCK_OFFSET_MS = 1_234;

/**
 * The model-based check's store on one simulated node, fresh per sequence (the property suite's and
 * the Lua mutation tester's). On the client's clock, a Dynomite node as ever; on the server's clock
 * (which Dynomite refuses), a lone primary with no network latency, so that its clock reads what the
 * model's does at every call.
 */
export async function simulatedNode(_name: string, layout: Layout): Promise<Setup> {
  if (!layout.serverTime) {
    const w = world('dynomite', ['a'], 0);
    return { store: w.client('sut', 'a'), run: (p) => w.settle(p) };
  }
  const w = world('primary-replica', ['a'], 0, 0);
  await w.advance(SERVER_CLOCK_OFFSET_MS);
  return {
    store: w.client('sut', 'a'),
    run: (p) => w.settle(p),
    serverClock: { now: () => w.kernel.now, advance: (ms) => w.advance(ms) },
  };
}
