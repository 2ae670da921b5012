import fc from 'fast-check';
import { FakeTime } from '../../src/testing/manual-time.js';
import { layoutsOf, modelCheck } from '../../src/testing/model-check/model-check.js';
import type { PropertyName } from '../../src/model/properties.js';
import { PROPERTY_NAMES } from '../../src/model/properties.js';
import type { AtomicQueue } from '../../src/queue/atomic-queue.js';
import { createQueue } from '../../src/queue/create-queue.js';
import type { QueueMode } from '../../src/queue/dyno-queue.js';
import { QueueKeys } from '../../src/queue/keys.js';
import { checkCompiles } from '../../src/redis/lua-engine.js';
import type { ScriptDef } from '../../src/redis/script.js';
import { parseSimConfig } from '../../src/sim/run/config.js';
import { CONFIGURATIONS, configurationRun } from '../../src/sim/run/configurations.js';
import { runSimulation } from '../../src/sim/run/run.js';
import { setSimScriptMode } from '../../src/sim/store/sim-node.js';
import { promotionBoundDiffers, staleMidPopDiffers, type LeasingCall, type PopRig, type PromotingCall } from '../../test/support/atomic-pop-edges.js';
import { disturbedRunsArb, luaTwinDifference } from '../../test/support/lua-twin.js';
import { simulatedNode } from '../../test/support/model-check-node.js';
import { scriptNamed } from '../../test/support/script-calls.js';
import { world } from '../../test/sim/fixtures.js';

/**
 * What a Lua mutant must get past, cheapest first; the first stage that fails it kills it. Every
 * stage runs the simulator in exact-Lua mode, so the mutant is what runs everywhere:
 * - `lua-twin`: the property suite holding the script's Lua to its JS twin (twinned scripts only);
 * - `model-based`: the queue against the reference model on one simulated node, each sequence on a
 *   layout drawn from every one the mode has (settle time, an extra shard, the server's clock);
 * - `pop-edges`: the scripts that promote and lease in rounds (pop, ackAndPop, peek), held to two
 *   edges the generators hardly reach: PROMOTE_BATCH per call on a backlog one larger, and a stale id
 *   met mid-pop (test/support/atomic-pop-edges.ts; CI runs the same checks on every backend);
 * - `simulation`: table configurations (no faults; a node crash; a client crash) judged by the
 *   checker — a property that held unmutated and breaks kills;
 * - `replay`: the same runs' trace hashes against the unmutated Lua (CI replays scenarios by hash).
 */
export type Stage = 'lua-twin' | 'model-based' | 'pop-edges' | 'simulation' | 'replay';
export const STAGES: readonly Stage[] = ['lua-twin', 'model-based', 'pop-edges', 'simulation', 'replay'];

export interface Verdict {
  readonly killedBy: Stage | 'does not compile' | null;
  readonly detail?: string;
}

const RUNS = { luaTwin: 300, modelBased: 200 };

/** The call of each script that promotes and leases in rounds (peek only promotes). */
const POP_EDGE_CALLS: Readonly<Record<string, PromotingCall>> = { atomicPop: 'pop', atomicAckAndPop: 'ackAndPop', atomicPeek: 'peek' };

/** Each pop edge of `call` on a fresh simulated node; the first that differs, or null. */
async function popEdgeDiffers(call: PromotingCall): Promise<string | null> {
  const checks: ((rig: PopRig) => Promise<string | null>)[] = [(rig) => promotionBoundDiffers(call, rig)];
  if (call !== 'peek') {
    const leasing: LeasingCall = call;
    checks.push((rig) => staleMidPopDiffers(leasing, rig));
  }
  for (const check of checks) {
    const w = world('dynomite', ['a'], 0);
    const time = new FakeTime();
    const store = w.client('sut', 'a');
    const queue = createQueue({ name: 'edges', quorum: store, clock: time, timers: time, unackInterval: 0 }) as AtomicQueue;
    try {
      const differs = await check({ queue, store, keys: new QueueKeys('dynoq', 'edges', false), advance: (ms) => time.advance(ms), run: (p) => w.settle(p) });
      if (differs) return differs;
    } catch (err) {
      return `threw: ${String(err).split('\n')[0]}`;
    } finally {
      await queue.close();
    }
  }
  return null;
}

function modesOf(script: ScriptDef): QueueMode[] {
  if (script.name.startsWith('legacy')) return ['legacy'];
  if (script.name.startsWith('atomic')) return ['atomic'];
  return ['atomic', 'legacy'];
}

function simulationRuns(mode: QueueMode): { name: string; seed: string }[] {
  const names = [`dynomite/DC_QUORUM/${mode}/none`, `primary-replica/${mode}/node-crash`, `primary-replica/${mode}/client-crash`];
  return names.filter((n) => CONFIGURATIONS.some((c) => c.name === n)).map((name) => ({ name, seed: 'lua-mutant-0' }));
}

async function simulate(name: string, seed: string): Promise<{ held: Set<PropertyName>; traceHash: string }> {
  const c = CONFIGURATIONS.find((x) => x.name === name)!;
  const r = await runSimulation(parseSimConfig(configurationRun(c, seed)));
  return { held: new Set(PROPERTY_NAMES.filter((p) => r.report.properties[p])), traceHash: r.traceHash };
}

/** The unmutated runs' outcomes, computed once per worker. */
const baselines = new Map<string, { held: Set<PropertyName>; traceHash: string }>();

/** Runs the stages against `lua` as the text of script `name`; the original text is restored after. */
export async function judgeMutant(name: string, lua: string): Promise<Verdict> {
  setSimScriptMode('lua');
  const script = scriptNamed(name) as { lua: string } & ScriptDef;
  for (const mode of modesOf(script)) {
    for (const { name: config, seed } of simulationRuns(mode)) {
      if (!baselines.has(config)) baselines.set(config, await simulate(config, seed));
    }
  }
  try {
    checkCompiles(lua);
  } catch {
    return { killedBy: 'does not compile' };
  }
  const original = script.lua;
  script.lua = lua;
  try {
    if (script.twin) {
      const r = fc.check(fc.property(disturbedRunsArb(script), (c) => luaTwinDifference(c) === null), { numRuns: RUNS.luaTwin, seed: 1 });
      if (r.failed) return { killedBy: 'lua-twin', detail: r.counterexample?.[0] ? (luaTwinDifference(r.counterexample[0]) ?? 'threw') : 'property failed' };
    }
    for (const mode of modesOf(script)) {
      try {
        await modelCheck({ mode, runs: RUNS.modelBased, seed: 1, layouts: layoutsOf(mode, true), setup: simulatedNode });
      } catch (err) {
        return { killedBy: 'model-based', detail: String(err).split('\n')[0] };
      }
    }
    const call = POP_EDGE_CALLS[name];
    const differs = call && (await popEdgeDiffers(call));
    if (differs) return { killedBy: 'pop-edges', detail: differs };
    let replay: Verdict | null = null;
    for (const mode of modesOf(script)) {
      for (const { name: config, seed } of simulationRuns(mode)) {
        let run;
        try {
          run = await simulate(config, seed);
        } catch (err) {
          return { killedBy: 'simulation', detail: `${config}: ${String(err).split('\n')[0]}` };
        }
        const base = baselines.get(config)!;
        const broken = [...base.held].filter((p) => !run.held.has(p));
        if (broken.length > 0) return { killedBy: 'simulation', detail: `${config}: ${broken.join(', ')}` };
        if (run.traceHash !== base.traceHash) replay ??= { killedBy: 'replay', detail: config };
      }
    }
    return replay ?? { killedBy: null };
  } finally {
    script.lua = original;
  }
}
