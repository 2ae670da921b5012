/**
 * How long one script call may run, counted in steps: one step is one command the script sends
 * (`redis.call` / `redis.pcall`), in its Lua and in its JS twin alike, so that a twin and its Lua
 * run out at the same step. Redis's Lua also counts instructions (the engine's fuel): a loop that
 * sends no command runs out too.
 */
export interface ScriptBudget {
  /** Commands one script call may send. */
  readonly steps: number;
}

/** Lua instructions allowed per step of the budget: generous, the step count is the real bound. */
export const LUA_INSTRUCTIONS_PER_STEP = 1_000;

/**
 * A script ran past its budget. On Redis it would run on past the script time limit (5 s by
 * default) and every other client would get `BUSY Redis is busy running a script` until it ended;
 * a script that has written cannot be killed (SCRIPT KILL refuses), so a script that never ends
 * holds the server for good. Not a RedisError: nobody gets this as a reply.
 */
export class ScriptTimeLimitError extends Error {
  constructor(
    readonly script: string,
    readonly steps: number,
  ) {
    super(`script ${script} ran past its budget of ${steps} steps: Redis would pass its script time limit and answer BUSY to every other client`);
    this.name = 'ScriptTimeLimitError';
  }
}

/** In compare mode, a script's JS twin gave another reply or other effects than its Lua. */
export class ScriptTwinMismatchError extends Error {
  constructor(
    readonly script: string,
    readonly difference: string,
  ) {
    super(`script ${script}: its JS twin differs from its Lua: ${difference}`);
    this.name = 'ScriptTwinMismatchError';
  }
}
