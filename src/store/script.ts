/**
 * A server-side script, defined once: the Lua text real Redis runs, and a JavaScript twin that a
 * simulated keyspace runs atomically. The twin is written against `LuaRedis`, which hands it values
 * exactly as Redis hands them to Lua (integers as numbers, bulk strings as strings, nil as `false`),
 * so that it can reproduce the Lua logic as written, quirks included. Conformance tests run both.
 */
export type LuaValue = string | number | boolean | LuaTable | LuaStatus;
export type LuaTable = LuaValue[];
export interface LuaStatus {
  readonly ok: string;
}

/** What `redis.call` is to a Lua script. Throws on a Redis error, as `redis.call` does. */
export interface LuaRedis {
  call(command: string, ...args: string[]): LuaValue;
}

/** A script's reply as the client sees it after Redis converts the Lua value. */
export type ScriptReply = string | number | null | ScriptReply[];

export interface ScriptDef {
  /** Unique name, used in traces and in errors. */
  readonly name: string;
  /** Number of KEYS the script takes, or `'variable'` when it depends on the shard count. */
  readonly keyCount: number | 'variable';
  readonly lua: string;
  /** The JS twin: the same logic over `LuaRedis`; returns the Lua value the script returns. */
  readonly run: (redis: LuaRedis, keys: readonly string[], argv: readonly string[]) => LuaValue | null;
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

/** Lua's truthiness: only nil and false are false (0 and '' are true). */
export function luaTruthy(value: LuaValue | null | undefined): boolean {
  return value !== null && value !== undefined && value !== false;
}

/** Lua's `tonumber` for the strings and numbers scripts see. */
export function luaToNumber(value: LuaValue | null | undefined): number | null {
  if (typeof value === 'number') return value;
  if (typeof value !== 'string') return null;
  const trimmed = value.trim();
  if (trimmed === '') return null;
  const n = Number(trimmed);
  return Number.isNaN(n) ? null : n;
}
