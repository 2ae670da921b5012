/**
 * How a keyspace runs a script: `'lua'` always runs its Lua text in Redis's Lua; `'twin'` runs its
 * JS twin where it has one (faster, proven equal by properties/lua-twin.test.ts) and the Lua otherwise;
 * `'compare'` runs the Lua and, on a copy of the script's keys, its twin too, and throws a
 * ScriptTwinMismatchError when their replies or effects differ (the Lua's stand: it is what Redis runs).
 */
export const SCRIPT_MODES = ['twin', 'lua', 'compare'] as const;
export type ScriptMode = (typeof SCRIPT_MODES)[number];
