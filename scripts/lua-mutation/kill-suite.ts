import fc from 'fast-check';
import { modelCheck } from '../../src/harness/model-check.js';
import type { PropertyName } from '../../src/model/properties.js';
import { PROPERTY_NAMES } from '../../src/model/properties.js';
import type { QueueMode } from '../../src/queue/dyno-queue.js';
import { checkCompiles } from '../../src/redis/lua-engine.js';
import type { ScriptDef } from '../../src/redis/script.js';
import { parseSimConfig } from '../../src/sim/config.js';
import { CONFIGURATIONS, configurationRun } from '../../src/sim/configurations.js';
import { runSimulation } from '../../src/sim/run.js';
import { setSimScriptMode } from '../../src/sim/sim-node.js';
import { disturbedRunsArb, luaTwinDifference } from '../../test/support/lua-twin.js';
import { scriptNamed } from '../../test/support/script-calls.js';
import { world } from '../../test/sim/fixtures.js';

/**
 * What a Lua mutant must get past, cheapest first; the first stage that fails it kills it. Every
 * stage runs the simulator in exact-Lua mode, so the mutant is what runs everywhere:
 * - `lua-twin`: the property suite holding the script's Lua to its JS twin (twinned scripts only);
 * - `model-based`: the queue against the reference model on one simulated node;
 * - `simulation`: table configurations (no faults; a node crash; a client crash) judged by the
 *   checker — a property that held unmutated and breaks kills;
 * - `replay`: the same runs' trace hashes against the unmutated Lua (CI replays scenarios by hash).
 */
export type Stage = 'lua-twin' | 'model-based' | 'simulation' | 'replay';
export const STAGES: readonly Stage[] = ['lua-twin', 'model-based', 'simulation', 'replay'];

export interface Verdict {
  readonly killedBy: Stage | 'does not compile' | null;
  readonly detail?: string;
}

const RUNS = { luaTwin: 300, modelBased: 60 };

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
        await modelCheck({
          mode,
          runs: RUNS.modelBased,
          seed: 1,
          setup: () => {
            const w = world('dynomite', ['a'], 0);
            return { store: w.client('sut', 'a'), run: (p) => w.settle(p) };
          },
        });
      } catch (err) {
        return { killedBy: 'model-based', detail: String(err).split('\n')[0] };
      }
    }
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
