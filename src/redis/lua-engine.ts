import { createHash } from 'node:crypto';
import { load, type ReplyValue } from 'lua-redis-wasm';
import { formatRedisDouble } from './number-format.js';
import { RedisError } from './redis-error.js';
import type { ScriptReply } from './script.js';
import { LUA_INSTRUCTIONS_PER_STEP, ScriptTimeLimitError, type ScriptBudget } from './script-budget.js';

/**
 * Redis's own Lua 5.1 (with cjson, cmsgpack, struct, bit and Redis's sandbox), compiled to
 * WebAssembly by the `lua-redis-wasm` package, driven the way Redis 7.0 drives it: KEYS and ARGV as
 * strings, `redis.call` raising and `redis.pcall` returning error tables, Lua values converted to
 * replies by Redis's rules (numbers truncated, false → nil, a table stops at its first nil, status
 * and error tables), errors worded as Redis words them.
 *
 * One engine serves the whole process: a script runs synchronously to its end and cannot start
 * another, so the engine is handed the keyspace of the script it is running (`runLua`).
 *
 * Known differences from a redis-server (measured by test/conformance/lua-engine.test.ts): `string.format('%d', x)`
 * clamps x ≥ 2^31 to 2147483647 (the C `long` of wasm32 is 32 bits; Redis prints the number);
 * a failed `redis.call` is reported "on @user_script:1" whatever its line (see firstValueOnly);
 * strings cross the boundary as UTF-8 (Redis is binary-safe); `math.random` restarts from seed 0 in
 * every script that uses it (Redis 7 carries its generator over from script to script, which no
 * simulation could reproduce deterministically).
 */

/** What a script's `redis.call` reaches: one command on the keyspace, its reply or a thrown RedisError. */
type CommandRunner = (command: string, args: readonly string[]) => ScriptReply;

/** Commands whose reply is a status (`+OK`), which Lua sees as a table {ok = ...}. */
const STATUS_COMMANDS = new Set(['flushall', 'flushdb']);

let runner: CommandRunner | null = null;
let luaRuns = 0;
/** Commands the running script has sent, its budget, and whether it went past it. */
let steps = 0;
let stepLimit = Infinity;
let overBudget = false;

/** How many scripts this process has run in Lua (for tests and benchmarks that must know which path ran). */
export function luaRunCount(): number {
  return luaRuns;
}

function toLua(command: string, reply: ScriptReply): ReplyValue {
  if (reply === null) return null;
  if (typeof reply === 'number') return reply;
  if (typeof reply === 'string') return STATUS_COMMANDS.has(command) ? { ok: Buffer.from(reply) } : Buffer.from(reply);
  return reply.map((r) => toLua('', r));
}

function hostCall(args: Buffer[]): ReplyValue {
  if (runner === null) return { err: Buffer.from('ERR no script is running') };
  const command = args[0]?.toString().toLowerCase() ?? '';
  if (command === '') return { err: Buffer.from('ERR Please specify at least one argument for this redis lib call') };
  if (++steps > stepLimit) {
    // The host cannot unwind the engine: the script gets an error, and runLua reports the overrun.
    overBudget = true;
    return { err: Buffer.from('ERR script over its step budget') };
  }
  try {
    return toLua(command, runner(command, args.slice(1).map((a) => a.toString())));
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    // Redis words these two differently when the caller is a script.
    if (/^ERR unknown command/.test(message)) return { err: Buffer.from('ERR Unknown Redis command called from script') };
    if (/^ERR wrong number of arguments/.test(message)) return { err: Buffer.from('ERR Wrong number of args calling Redis command from script') };
    return { err: Buffer.from(message) };
  }
}

const engine = (await load({ profile: 'redis-7.0' })).create({
  redisCall: hostCall,
  redisPcall: hostCall,
  log: () => {},
});

/** The engine's largest instruction budget (its fuel is a 32-bit count; 0 would mean none at all). */
const MAX_FUEL = 2 ** 31 - 1;
/**
 * lua-redis-wasm takes its fuel (instructions per eval) once, at load; the module's `_set_limits`
 * export changes it between evals. Reached through the engine's `exports`, which its typings keep
 * private: without it every script keeps the load-time setting (no limit), and the step count
 * alone bounds a script.
 */
const setLimits = (engine as unknown as { exports?: { _set_limits?: (fuel: number, reply: number, arg: number) => void } }).exports?._set_limits;
let fuelSet = -1;
function setFuel(fuel: number): void {
  if (fuel === fuelSet || !setLimits) return;
  setLimits(fuel, 0, 0);
  fuelSet = fuel;
}
const FUEL_SPENT = 'Script killed by fuel limit';

/** The SHA1 hex digest Redis names a script by (EVALSHA, SCRIPT LOAD). */
export function scriptSha(lua: string): string {
  let sha = shas.get(lua);
  if (sha === undefined) {
    sha = createHash('sha1').update(lua).digest('hex');
    shas.set(lua, sha);
  }
  return sha;
}
const shas = new Map<string, string>();

/** Lua texts known to compile, by text; a text that does not compile is refused as Redis refuses it. */
const compiled = new Set<string>();

/** Compiles `lua` without running it: throws Redis's "Error compiling script" when it does not compile. */
export function checkCompiles(lua: string): void {
  if (compiled.has(lua)) return;
  const result = engine.evalWithArgs('local f, e = loadstring(ARGV[1], "@user_script") if f then return 1 end return e', [], [lua]);
  if (result !== 1) throw new RedisError(`ERR Error compiling script (new function): ${String(asText(result))}`);
  compiled.add(lua);
}

function asText(v: ReplyValue): string {
  return Buffer.isBuffer(v) ? v.toString() : JSON.stringify(v);
}

interface ErrorValue {
  readonly err: Buffer;
  readonly code?: Buffer;
  readonly meta?: { readonly line?: number; readonly sha?: string; readonly kind?: string; readonly name?: Buffer | string };
}

function isError(v: ReplyValue): v is ReplyValue & ErrorValue {
  return typeof v === 'object' && v !== null && !Buffer.isBuffer(v) && !Array.isArray(v) && 'err' in v;
}

/** The wording of an engine-classified error, as Redis 7.0 prints it. */
function engineMessage(e: ErrorValue): string {
  switch (e.meta?.kind) {
    case 'global-read':
      return `ERR user_script:${e.meta.line ?? 1}: Script attempted to access nonexistent global variable '${String(e.meta.name ?? '')}'`;
    case 'command-arg-type':
      return 'ERR Lua redis lib command arguments must be strings or integers';
    default: {
      const text = e.err.toString();
      return e.code ? `${e.code.toString()} ${text}` : text;
    }
  }
}

/** A Lua reply as a RESP2 client (ioredis) sees it. */
function toClient(v: ReplyValue): ScriptReply {
  if (v === null || v === false) return null;
  if (v === true) return 1;
  if (typeof v === 'number') return v;
  if (typeof v === 'bigint') return Number(v);
  if (Buffer.isBuffer(v)) return v.toString();
  if (Array.isArray(v)) return v.map(toClient);
  if ('ok' in v) return v.ok.toString();
  if ('err' in v) throw new RedisError(engineMessage(v as ErrorValue));
  if ('double' in v) return formatRedisDouble(v.double);
  if ('big_number' in v) return v.big_number.toString();
  if ('verbatim_string' in v) return v.verbatim_string.string.toString();
  if ('map' in v) return v.map.flatMap(([k, x]) => [toClient(k), toClient(x)]);
  return v.set.map(toClient);
}

/**
 * Shadows `redis` with one whose call/pcall hand numbers over as Redis 7.0 does ("%.17g";
 * lua-redis-wasm uses Lua's "%.14g", so 0.1 + 0.2 would be stored as "0.3").
 */
const NUMBER_ARGS_AS_REDIS =
  "local redis = (function(r) local sf, sel, up, ty = string.format, select, unpack, type " +
  "local function a(...) local t, n = {...}, sel('#', ...) for i = 1, n do if ty(t[i]) == 'number' then t[i] = sf('%.17g', t[i]) end end return up(t, 1, n) end " +
  'return setmetatable({call = function(...) return r.call(a(...)) end, pcall = function(...) return r.pcall(a(...)) end}, {__index = r}) end)(redis) ';

/**
 * Redis calls a script asking for one result, so `return a, b` replies a; lua-redis-wasm replies the
 * last value. The text is therefore run as the body of a function whose call is parenthesised (Lua's
 * "first value only"), with `redis` shadowed (NUMBER_ARGS_AS_REDIS), all of the prefix on the
 * script's first line so that line numbers of Lua errors stay the script's own. (A failed
 * `redis.call` is then reported on line 1: the engine takes the line of the Lua function that made
 * the call, now the shadow.) Only a text that compiles on its own gets here (checkCompiles).
 */
function firstValueOnly(lua: string): string {
  let wrapped = wrappers.get(lua);
  if (wrapped === undefined) {
    wrapped = `return ((function() ${NUMBER_ARGS_AS_REDIS}${lua}\nend)())`;
    wrappers.set(lua, wrapped);
  }
  return wrapped;
}
const wrappers = new Map<string, string>();

/**
 * Runs a script's Lua text against `run` (the keyspace's command executor) and returns the client's
 * reply; a script error is thrown as a RedisError worded as Redis 7.0 words it. Effects up to an
 * error stay applied, as on Redis. With a `budget`, a script that sends more commands than its steps,
 * or runs more than LUA_INSTRUCTIONS_PER_STEP instructions per step, throws a ScriptTimeLimitError
 * (`name` names it).
 */
export function runLua(lua: string, keys: readonly string[], args: readonly string[], run: CommandRunner, budget?: ScriptBudget, name = scriptSha(lua)): ScriptReply {
  checkCompiles(lua);
  if (runner !== null) throw new RedisError('ERR This Redis command is not allowed from script');
  if (lua.includes('math.random')) engine.eval('math.randomseed(0)');
  setFuel(budget ? Math.min(MAX_FUEL, Math.max(1, budget.steps) * LUA_INSTRUCTIONS_PER_STEP) : MAX_FUEL);
  runner = run;
  steps = 0;
  stepLimit = budget?.steps ?? Infinity;
  overBudget = false;
  luaRuns++;
  let result: ReplyValue;
  try {
    result = engine.evalWithArgs(firstValueOnly(lua), keys as string[], args as string[]);
  } finally {
    runner = null;
  }
  if (overBudget || (budget && isError(result) && result.err.toString() === FUEL_SPENT)) throw new ScriptTimeLimitError(name, budget?.steps ?? 0);
  if (isError(result) && result.meta?.line !== undefined) {
    // Raised by the script (a failed redis.call, a Lua runtime error), not returned by it.
    throw new RedisError(`${engineMessage(result)} script: ${scriptSha(lua)}, on @user_script:${result.meta.line}.`);
  }
  return toClient(result);
}
