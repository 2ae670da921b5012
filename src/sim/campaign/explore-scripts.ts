import { SCRIPT_MODES, type ScriptMode } from '../../redis/script-mode.js';

/**
 * How explore runs the scripts (`--scripts`): one mode for every seed, or `mixed` (the default):
 * every EXACT_SHARE-th seed (indices 0, 4, 8, …) in compare mode — Redis's Lua, each twin call
 * compared with it — and the others on the twins; every finding shrunk on the twins is run once more
 * in Lua (SeedOutcome.luaConfirms).
 */
export type ExploreScripts = ScriptMode | 'mixed';
export const EXPLORE_SCRIPTS = ['mixed', ...SCRIPT_MODES] as const satisfies readonly ExploreScripts[];
export const EXACT_SHARE = 4;

/** The script mode of seed index `i` (undefined: the process's, DYNOQ_SCRIPTS or twins). */
export function scriptModeOfSeed(i: number, scripts: ExploreScripts): ScriptMode | undefined {
  if (scripts !== 'mixed') return scripts;
  return i % EXACT_SHARE === 0 ? 'compare' : undefined;
}
