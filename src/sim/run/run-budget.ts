import { PROMOTE_BATCH } from '../../queue/scripts/atomic-common.js';
import type { ScriptBudget } from '../../redis/script-budget.js';
import type { SimConfig } from './config.js';

/**
 * What makes every simulated run end, derived from its configuration (docs/SCENARIOS.md, "Budgets"):
 * - each script call may send `SCRIPT_STEPS_PER_MESSAGE` commands per message of the run plus as many
 *   per id of a promotion batch (the most any correct script does: a push of every message in one
 *   batch, a promotion of a full batch), and its Lua LUA_INSTRUCTIONS_PER_STEP instructions per step;
 * - the run may execute `EVENTS_PER_TICK` kernel events per tick of its busiest timer (the queue's
 *   long-poll step, the reaper's period or a producer's push rate), per actor (zones counted as
 *   actors) and per simulated second of its phases, plus `EVENTS_PER_MESSAGE` per message: at least
 *   ten times what the correct runs measured took (at most 200 events per actor-second at a 10 ms step).
 */
const SCRIPT_STEPS_PER_MESSAGE = 16;
const EVENTS_PER_TICK = 20;
const EVENTS_PER_MESSAGE = 500;

export interface RunBudget {
  readonly script: ScriptBudget;
  readonly events: number;
}

export function runBudget(config: SimConfig): RunBudget {
  const w = config.workload;
  // The operator client of the full profile, and a restarted copy of every crashed consumer.
  const actors = w.producers + 2 * w.consumers + 1 + config.topology.zones.length;
  const seconds = Math.ceil((config.phases.safetyMs + config.phases.livenessMs) / 1_000) + 1;
  const ticksPerSecond = Math.max(1_000 / w.pollIntervalMs, 1_000 / config.queue.reaperIntervalMs, w.rate);
  return {
    script: { steps: SCRIPT_STEPS_PER_MESSAGE * (w.messages + PROMOTE_BATCH) },
    events: Math.ceil(EVENTS_PER_TICK * ticksPerSecond * actors * seconds) + EVENTS_PER_MESSAGE * w.messages,
  };
}
