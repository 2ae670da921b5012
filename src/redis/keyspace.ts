import { checkCompiles, runLua, scriptSha } from './lua-engine.js';
import { formatRedisDouble } from './number-format.js';
import { isOption, parseInteger, parseScore } from './argument-parsing.js';
import { MIN_MAX_NOT_FLOAT, RedisError, SYNTAX, WRONGTYPE } from './redis-error.js';
import { luaToReply, replyToLua, type LuaRedis, type ScriptDef, type ScriptReply } from './script.js';
import { SortedSet } from './sorted-set.js';
import { ScriptTimeLimitError, ScriptTwinMismatchError, type ScriptBudget } from './script-budget.js';
import type { ScriptMode } from './script-mode.js';

export type Value = SortedSet | Map<string, string>;
export type Reply = ScriptReply;

/** Redis's arity per command (name included; negative: at least that many). */
const ARITY = new Map<string, number>(
  Object.entries({
    zadd: -4, zrem: -3, zscore: 3, zrank: 3, zcard: 2, zrangebyscore: -4, zrange: -4, zscan: -3,
    hset: -4, hget: 3, hdel: -3, hlen: 2, hexists: 3, hkeys: 2, hgetall: 2, hscan: -3, hincrby: 4,
    del: -2, exists: -2, time: 1, flushall: -1, eval: -3, evalsha: -3, script: -2,
  }),
);

interface Bound {
  readonly value: number;
  readonly exclusive: boolean;
}

function parseBound(s: string): Bound {
  const exclusive = s.startsWith('(');
  return { value: parseScore(exclusive ? s.slice(1) : s, MIN_MAX_NOT_FLOAT), exclusive };
}

export { SCRIPT_MODES, type ScriptMode } from './script-mode.js';

/**
 * An in-memory Redis 7 keyspace: sorted sets, hashes, EVAL / EVALSHA / SCRIPT, with Redis's replies
 * (bulk strings, integers, nil as null) and Redis's errors. A script runs atomically: nothing else
 * runs between its first and last call.
 */
function copyValue(value: Value): Value {
  if (!(value instanceof SortedSet)) return new Map(value);
  const z = new SortedSet();
  for (const e of value.entries()) z.set(e.member, e.score);
  return z;
}

type Outcome = { readonly reply: Reply } | { readonly thrown: unknown };

function outcomeOf(run: () => Reply): Outcome {
  try {
    return { reply: run() };
  } catch (thrown) {
    return { thrown };
  }
}

export class Keyspace {
  private readonly data = new Map<string, Value>();
  /** SCRIPT LOAD's cache, by SHA1. Like a restarted redis-server, a new keyspace starts without it. */
  private readonly scriptCache = new Map<string, string>();
  /**
   * Counts the commands (a script's included) that changed data: comparing it around one command
   * tells whether that command had an effect here, whatever it replied.
   */
  changes = 0;

  /** `nowMs` is this node's clock, for TIME. */
  /** `budget` bounds each script call (none: unbounded, as a plain Redis without a time limit). */
  constructor(
    private readonly nowMs: () => number = () => 0,
    readonly scriptMode: ScriptMode = 'twin',
    readonly scriptBudget?: ScriptBudget,
  ) {}

  get keyCount(): number {
    return this.data.size;
  }

  keys(): string[] {
    return [...this.data.keys()].sort();
  }

  /** Direct access for snapshots and replica resync. */
  raw(key: string): Value | undefined {
    return this.data.get(key);
  }

  setRaw(key: string, value: Value | undefined): void {
    this.changes++;
    if (value === undefined || value.size === 0) this.data.delete(key);
    else this.data.set(key, value);
  }

  /** A deep copy (a replica's full resync, a crash that keeps its data). */
  clone(nowMs: () => number = this.nowMs): Keyspace {
    const copy = new Keyspace(nowMs, this.scriptMode, this.scriptBudget);
    for (const [key, value] of this.data) copy.data.set(key, copyValue(value));
    return copy;
  }

  /** Deep copies of these keys' values (undefined where a key does not exist): a script's effects. */
  snapshot(keys: readonly string[]): [string, Value | undefined][] {
    return keys.map((k) => {
      const v = this.data.get(k);
      return [k, v === undefined ? undefined : copyValue(v)];
    });
  }

  /** Applies a snapshot taken on another keyspace (as a replica applies a script's effects). */
  restore(entries: readonly [string, Value | undefined][]): void {
    for (const [k, v] of entries) this.setRaw(k, v === undefined ? undefined : copyValue(v));
  }

  /** A canonical dump of the whole keyspace, for comparing two keyspaces. */
  dump(): Record<string, [string, string][] | Record<string, string>> {
    const out: Record<string, [string, string][] | Record<string, string>> = {};
    for (const key of this.keys()) {
      const v = this.data.get(key)!;
      out[key] =
        v instanceof SortedSet
          ? [...v.entries()].map((e) => [e.member, formatRedisDouble(e.score)] as [string, string])
          : Object.fromEntries([...v.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
    }
    return out;
  }

  /** What a twin calls, as a script's `redis.call`: one per keyspace, not one per script run. */
  private readonly twinRedis: LuaRedis = { call: (cmd, ...a) => replyToLua(this.exec(cmd, a)) };
  /** The same, counting the twin's steps against the budget (only with one). */
  private twinSteps = 0;
  private twinScript = '';
  private readonly countedTwinRedis: LuaRedis = {
    call: (cmd, ...a) => {
      if (++this.twinSteps > this.scriptBudget!.steps) throw new ScriptTimeLimitError(this.twinScript, this.scriptBudget!.steps);
      return replyToLua(this.exec(cmd, a));
    },
  };

  /** Runs a script atomically: its twin in twin mode when it has one, else its Lua text (both, compared, in compare mode). */
  runScript(script: ScriptDef, keys: readonly string[], args: readonly string[]): Reply {
    if (script.twin && this.scriptMode !== 'lua') {
      return this.scriptMode === 'twin' ? this.runTwin(script, keys, args) : this.compareTwin(script, keys, args);
    }
    return runLua(script.lua, keys, args, (cmd, a) => this.exec(cmd, a), this.scriptBudget, script.name);
  }

  private runTwin(script: ScriptDef, keys: readonly string[], args: readonly string[]): Reply {
    if (this.scriptBudget === undefined) return luaToReply(script.twin!(this.twinRedis, keys, args));
    this.twinSteps = 0;
    this.twinScript = script.name;
    return luaToReply(script.twin!(this.countedTwinRedis, keys, args));
  }

  /**
   * The Lua here, the twin on a copy of the script's KEYS (a script touches no other key): their
   * replies (or both failing) and the keys' values afterwards must be equal.
   */
  private compareTwin(script: ScriptDef, keys: readonly string[], args: readonly string[]): Reply {
    const copy = new Keyspace(this.nowMs, 'twin', this.scriptBudget);
    copy.restore(this.snapshot(keys));
    const twin = outcomeOf(() => copy.runTwin(script, keys, args));
    const lua = outcomeOf(() => runLua(script.lua, keys, args, (cmd, a) => this.exec(cmd, a), this.scriptBudget, script.name));
    if ('thrown' in lua && !(lua.thrown instanceof RedisError)) throw lua.thrown;
    if ('thrown' in twin && !(twin.thrown instanceof RedisError)) throw twin.thrown;
    const said = (o: Outcome) => ('thrown' in o ? `error ${(o.thrown as Error).message}` : JSON.stringify(o.reply));
    if ('thrown' in lua !== 'thrown' in twin || ('reply' in lua && 'reply' in twin && JSON.stringify(lua.reply) !== JSON.stringify(twin.reply))) {
      throw new ScriptTwinMismatchError(script.name, `Lua replied ${said(lua)}, the twin ${said(twin)}`);
    }
    const after = new Keyspace();
    after.restore(this.snapshot(keys));
    const luaKeys = after.dump();
    const twinKeys = copy.dump();
    for (const key of new Set([...Object.keys(luaKeys), ...Object.keys(twinKeys)])) {
      const l = JSON.stringify(luaKeys[key] ?? null);
      const t = JSON.stringify(twinKeys[key] ?? null);
      if (l !== t) throw new ScriptTwinMismatchError(script.name, `key ${key} after the Lua: ${l}; after the twin: ${t}`);
    }
    if ('thrown' in lua) throw lua.thrown;
    return lua.reply;
  }

  /** EVAL: the Lua text in Redis's Lua 5.1 against this keyspace. */
  eval(lua: string, keys: readonly string[], args: readonly string[]): Reply {
    return runLua(lua, keys, args, (cmd, a) => this.exec(cmd, a), this.scriptBudget);
  }

  private evalCommand(args: readonly string[], bySha: boolean): Reply {
    const numKeys = parseInteger(args[1]);
    if (numKeys < 0) throw new RedisError("ERR Number of keys can't be negative");
    if (numKeys > args.length - 2) throw new RedisError("ERR Number of keys can't be greater than number of args");
    let lua = args[0] ?? '';
    if (bySha) {
      const cached = this.scriptCache.get(lua.toLowerCase());
      if (cached === undefined) throw new RedisError('NOSCRIPT No matching script. Please use EVAL.');
      lua = cached;
    }
    return this.eval(lua, args.slice(2, 2 + numKeys), args.slice(2 + numKeys));
  }

  private scriptCommand(args: readonly string[]): Reply {
    switch (args[0]?.toLowerCase()) {
      case 'load': {
        const lua = args[1] ?? '';
        checkCompiles(lua);
        const sha = scriptSha(lua);
        this.scriptCache.set(sha, lua);
        return sha;
      }
      case 'exists':
        return args.slice(1).map((sha) => (this.scriptCache.has(sha.toLowerCase()) ? 1 : 0));
      case 'flush':
        this.scriptCache.clear();
        return 'OK';
      default:
        throw new RedisError(`ERR unknown subcommand '${args[0] ?? ''}'. Try SCRIPT HELP.`);
    }
  }

  private zset(key: string, create: boolean): SortedSet | undefined {
    const v = this.data.get(key);
    if (v === undefined) {
      if (!create) return undefined;
      const z = new SortedSet();
      this.data.set(key, z);
      return z;
    }
    if (!(v instanceof SortedSet)) throw new RedisError(WRONGTYPE);
    return v;
  }

  private hash(key: string, create: boolean): Map<string, string> | undefined {
    const v = this.data.get(key);
    if (v === undefined) {
      if (!create) return undefined;
      const h = new Map<string, string>();
      this.data.set(key, h);
      return h;
    }
    if (v instanceof SortedSet) throw new RedisError(WRONGTYPE);
    return v;
  }

  private dropIfEmpty(key: string): void {
    if (this.data.get(key)?.size === 0) this.data.delete(key);
  }

  exec(command: string, args: readonly string[]): Reply {
    // Scripts name commands in lower case: only other spellings pay for a new string.
    const cmd = ARITY.has(command) ? command : command.toLowerCase();
    const arity = ARITY.get(cmd);
    if (arity !== undefined && (arity > 0 ? args.length + 1 !== arity : args.length + 1 < -arity)) {
      throw new RedisError(`ERR wrong number of arguments for '${cmd}' command`);
    }
    const key = args[0] ?? '';
    switch (cmd) {
      case 'zadd':
        return this.zadd(key, args);
      case 'zrem': {
        const z = this.zset(key, false);
        let n = 0;
        // Indexes, not slice: a command's arguments are one array per call on the hot path.
        for (let i = 1; i < args.length; i++) if (z?.delete(args[i]!)) n++;
        this.dropIfEmpty(key);
        if (n > 0) this.changes++;
        return n;
      }
      case 'zscore': {
        const s = this.zset(key, false)?.score(args[1] ?? '');
        return s === undefined ? null : formatRedisDouble(s);
      }
      case 'zrank':
        return this.zset(key, false)?.rank(args[1] ?? '') ?? null;
      case 'zcard':
        return this.zset(key, false)?.size ?? 0;
      case 'zrangebyscore':
        return this.zrangebyscore(key, args);
      case 'zrange':
        return this.zrange(key, args);
      case 'zscan': {
        // As hscan: one pass returns everything with cursor 0 (member, score pairs).
        if (args[1] !== '0') throw new RedisError('ERR invalid cursor');
        const z = this.zset(key, false);
        const entries = z ? z.byRank(0, z.size - 1) : [];
        return ['0', entries.flatMap((e) => [e.member, formatRedisDouble(e.score)])];
      }
      case 'hset': {
        if (args.length < 3 || args.length % 2 === 0) throw new RedisError("ERR wrong number of arguments for 'hset' command");
        const h = this.hash(key, true)!;
        let added = 0;
        let changed = false;
        for (let i = 1; i < args.length; i += 2) {
          if (!h.has(args[i]!)) added++;
          if (h.get(args[i]!) !== args[i + 1]) changed = true;
          h.set(args[i]!, args[i + 1]!);
        }
        if (changed) this.changes++;
        return added;
      }
      case 'hget':
        return this.hash(key, false)?.get(args[1] ?? '') ?? null;
      case 'hdel': {
        const h = this.hash(key, false);
        let n = 0;
        for (let i = 1; i < args.length; i++) if (h?.delete(args[i]!)) n++;
        this.dropIfEmpty(key);
        if (n > 0) this.changes++;
        return n;
      }
      case 'hlen':
        return this.hash(key, false)?.size ?? 0;
      case 'hexists':
        return this.hash(key, false)?.has(args[1] ?? '') ? 1 : 0;
      case 'hkeys':
        return [...(this.hash(key, false)?.keys() ?? [])];
      case 'hgetall':
        return [...(this.hash(key, false)?.entries() ?? [])].flat();
      case 'hscan':
        // One pass returns everything with cursor 0 (COUNT is a hint): a valid (if unhurried) HSCAN reply.
        if (args[1] !== '0') throw new RedisError('ERR invalid cursor');
        return ['0', [...(this.hash(key, false)?.entries() ?? [])].flat()];
      case 'hincrby': {
        const h = this.hash(key, true)!;
        const had = h.has(args[1] ?? '');
        const current = had ? parseInteger(h.get(args[1] ?? '')) : 0;
        const next = current + parseInteger(args[2]);
        h.set(args[1] ?? '', String(next));
        if (next !== current || !had) this.changes++;
        return next;
      }
      case 'del': {
        let n = 0;
        for (const k of args) if (this.data.delete(k)) n++;
        if (n > 0) this.changes++;
        return n;
      }
      case 'exists':
        return args.filter((k) => this.data.has(k)).length;
      case 'time': {
        const ms = this.nowMs();
        return [String(Math.floor(ms / 1000)), String(Math.floor(ms % 1000) * 1000)];
      }
      case 'flushall':
        if (this.data.size > 0) this.changes++;
        this.data.clear();
        return 'OK';
      case 'eval':
        return this.evalCommand(args, false);
      case 'evalsha':
        return this.evalCommand(args, true);
      case 'script':
        return this.scriptCommand(args);
      default:
        throw new RedisError(`ERR unknown command '${command}'`);
    }
  }

  /** ZADD key [NX|XX|CH]... score member ...: `args` as given to exec, the key first. */
  private zadd(key: string, args: readonly string[]): Reply {
    let i = 1;
    let nx = false;
    let xx = false;
    let ch = false;
    for (; i < args.length; i++) {
      const flag = args[i]!;
      if (isOption(flag, 'nx')) nx = true;
      else if (isOption(flag, 'xx')) xx = true;
      else if (isOption(flag, 'ch')) ch = true;
      else break;
    }
    const first = i;
    const pairsLength = args.length - first;
    if (pairsLength === 0 || pairsLength % 2 !== 0) throw new RedisError(SYNTAX);
    if (nx && xx) throw new RedisError('ERR XX and NX options at the same time are not compatible');
    // Every score is parsed before anything changes: one bad score fails the whole command.
    const scores: number[] = [];
    for (let j = first; j < args.length; j += 2) scores.push(parseScore(args[j]));
    const z = this.zset(key, !xx);
    if (!z) return 0;
    let added = 0;
    let changed = 0;
    for (let p = 0; p < scores.length; p++) {
      const score = scores[p]!;
      const member = args[first + 2 * p + 1]!;
      const old = z.score(member);
      if (old === undefined) {
        if (xx) continue;
        z.set(member, score);
        added++;
      } else {
        if (nx) continue;
        if (old !== score) {
          z.set(member, score);
          changed++;
        }
      }
    }
    this.dropIfEmpty(key);
    if (added + changed > 0) this.changes++;
    return ch ? added + changed : added;
  }

  /** ZRANGEBYSCORE key min max [WITHSCORES] [LIMIT offset count]: `args` as given to exec, the key first. */
  private zrangebyscore(key: string, args: readonly string[]): Reply {
    const min = parseBound(args[1] ?? '');
    const max = parseBound(args[2] ?? '');
    let withScores = false;
    let offset = 0;
    let count = -1;
    for (let i = 3; i < args.length; i++) {
      const opt = args[i]!;
      if (isOption(opt, 'withscores')) withScores = true;
      else if (isOption(opt, 'limit') && i + 2 < args.length) {
        offset = parseInteger(args[i + 1]);
        count = parseInteger(args[i + 2]);
        i += 2;
      } else throw new RedisError(SYNTAX);
    }
    const z = this.zset(key, false);
    if (!z || offset < 0) return [];
    const above = (s: number) => (min.exclusive ? s > min.value : s >= min.value);
    const below = (s: number) => (max.exclusive ? s < max.value : s <= max.value);
    const entries = z.byScore(above, below, offset, count);
    return withScores ? entries.flatMap((e) => [e.member, formatRedisDouble(e.score)]) : entries.map((e) => e.member);
  }

  /** ZRANGE key start stop [WITHSCORES]: `args` as given to exec, the key first. */
  private zrange(key: string, args: readonly string[]): Reply {
    let start = parseInteger(args[1]);
    let stop = parseInteger(args[2]);
    const withScores = args[3] !== undefined && isOption(args[3], 'withscores');
    if (args.length > (withScores ? 4 : 3)) throw new RedisError(SYNTAX);
    const z = this.zset(key, false);
    if (!z) return [];
    const n = z.size;
    if (start < 0) start = Math.max(0, n + start);
    if (stop < 0) stop = n + stop;
    if (stop >= n) stop = n - 1;
    if (start > stop || start >= n) return [];
    const entries = z.byRank(start, stop);
    return withScores ? entries.flatMap((e) => [e.member, formatRedisDouble(e.score)]) : entries.map((e) => e.member);
  }
}
