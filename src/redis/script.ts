/**
 * A server-side script, defined once: the Lua text Redis runs (the in-process keyspace runs the same
 * text in Redis's Lua, `lua-engine.ts`) and, where a simulation needs the speed, a JavaScript twin.
 * A twin is written against `LuaRedis`, which hands it values exactly as Redis hands them to Lua
 * (integers as numbers, bulk strings as strings, nil as `false`), so that it reproduces the Lua
 * logic as written, quirks included; a property suite runs both on random states and demands equal
 * replies and effects.
 */
export type LuaValue = string | number | boolean | LuaTable | LuaStatus;
export type LuaTable = LuaValue[];
interface LuaStatus {
  readonly ok: string;
}

/** What `redis.call` is to a Lua script. Throws on a Redis error, as `redis.call` does. */
export interface LuaRedis {
  call(command: string, ...args: string[]): LuaValue;
}

/** A script's reply as the client sees it after Redis converts the Lua value. */
export type ScriptReply = string | number | null | ScriptReply[];

type ScriptTwin = (redis: LuaRedis, keys: readonly string[], argv: readonly string[]) => LuaValue | null;

export interface ScriptDef {
  /** Unique name, used in traces and in errors. */
  readonly name: string;
  /** Number of KEYS the script takes, or `'variable'` when it depends on the shard count. */
  readonly keyCount: number | 'variable';
  /** False for a read-only script (a simulated replica need not replay it). */
  readonly writes: boolean;
  readonly lua: string;
  /** The optional JS twin: the same logic over `LuaRedis`; returns the Lua value the script returns. */
  readonly twin?: ScriptTwin;
  /**
   * The twin's failed `redis.call` is reported bare (`OOM command not allowed …`) where the Lua's
   * carries ` script: SHA, on @user_script:1.`. Set on the first twins, whose error wording the
   * recorded traces hold; every later twin words its errors as its Lua does.
   */
  readonly twinErrorsBare?: true;
}

/**
 * Converts a Lua return value to the client reply, as Redis does: numbers are truncated to
 * integers, `false`/nil become null, `true` becomes 1, a table stops at its first nil.
 */
export function luaToReply(value: LuaValue | null): ScriptReply {
  if (value === null || value === false) return null;
  if (value === true) return 1;
  if (typeof value === 'number') return Math.trunc(value);
  if (typeof value === 'string') return value;
  if (Array.isArray(value)) {
    const out: ScriptReply[] = [];
    for (const item of value) {
      if (item === null || item === undefined) break;
      out.push(luaToReply(item));
    }
    return out;
  }
  return value.ok;
}

/** How Redis hands a command reply to Lua: nil becomes false, arrays become tables. */
export function replyToLua(reply: ScriptReply): LuaValue {
  if (reply === null) return false;
  if (Array.isArray(reply)) return needsConversion(reply) ? reply.map(replyToLua) : (reply as LuaValue[]);
  return reply;
}

/** Whether an array reply holds a nil or a nested array; most (members, ids) hold only strings and are handed over as they are. */
function needsConversion(reply: readonly ScriptReply[]): boolean {
  for (let i = 0; i < reply.length; i++) {
    const item = reply[i];
    if (item === null || Array.isArray(item)) return true;
  }
  return false;
}

/** Lua's truthiness: only nil and false are false (0 and '' are true). */
export function luaTruthy(value: LuaValue | null | undefined): boolean {
  return value !== null && value !== undefined && value !== false;
}
