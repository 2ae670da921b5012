import { checkCompiles, runLua, scriptSha } from './lua-engine.js';
import { formatRedisDouble } from './number-format.js';
import { isOption, parseInteger, parseScore } from './argument-parsing.js';
import { MIN_MAX_NOT_FLOAT, RedisError, SYNTAX, WRONGTYPE } from './redis-error.js';
import { luaToReply, replyToLua, type LuaRedis, type ScriptDef, type ScriptReply } from './script.js';
import { SortedSet } from './sorted-set.js';
import {
  DENY_OOM_COMMANDS,
  HASH_FIELD_BYTES,
  KEY_BYTES,
  oomError,
  scriptShebang,
  stringBytes,
  WRITE_COMMANDS,
  ZSET_MEMBER_BYTES,
  type MemoryLimit,
  type ScriptFlags,
} from './memory.js';
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

export type { ScriptMode } from './script-mode.js';

/**
 * An in-memory Redis 7 keyspace: sorted sets, hashes, EVAL / EVALSHA / SCRIPT, with Redis's replies
 * (bulk strings, integers, nil as null) and Redis's errors. A script runs atomically: nothing else
 * runs between its first and last call.
 */
function copyValue(value: Value): Value {
  return value instanceof SortedSet ? value.clone() : new Map(value);
}

/**
 * The content bytes of values that are shared (see `Keyspace.shared`): a shared value never changes
 * again, so its bytes are summed once however many replicas take it.
 */
const SHARED_CONTENT_BYTES = new WeakMap<Value, number>();

function contentBytes(value: Value, shared: boolean): number {
  if (value instanceof SortedSet) return value.size * ZSET_MEMBER_BYTES + value.memberBytes;
  const known = shared ? SHARED_CONTENT_BYTES.get(value) : undefined;
  if (known !== undefined) return known;
  let n = 0;
  for (const [f, v] of value) n += HASH_FIELD_BYTES + stringBytes(f) + stringBytes(v);
  if (shared) SHARED_CONTENT_BYTES.set(value, n);
  return n;
}

/** The bytes of one key and its value in the estimate of memory.ts. */
function valueBytes(key: string, value: Value, shared = false): number {
  return KEY_BYTES + stringBytes(key) + contentBytes(value, shared);
}

/** A running script, for the memory rules: over the limit as it started, written yet, its flags. */
interface RunningScript {
  readonly oom: boolean;
  dirty: boolean;
  readonly flags: ScriptFlags;
}

const COMPAT: ScriptFlags = { declared: false, allowOom: false, noWrites: false };

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
  /** The memory estimate of `data` (memory.ts), kept as commands change it. */
  private bytes = 0;
  /** `maxmemory` and its policy; undefined: no limit (Redis's default), nothing is checked. */
  private limit: MemoryLimit | undefined;
  /** Bytes another tenant of this server holds (counted in `usedMemory`, never evicted by this keyspace). */
  private tenantBytes = 0;
  /** The script running now, while a limit is set or it declared flags. */
  private script: RunningScript | null = null;
  /** Per key: the tick of its last access and how many accesses it had (LRU / LFU), kept while a limit is set. */
  private readonly access = new Map<string, { tick: number; count: number }>();
  private tick = 0;
  /** Keys evicted since `takeEvicted` was last called (a primary sends them to its replicas as DEL). */
  private evicted: string[] = [];
  /** Keys evicted in this keyspace's life. */
  evictions = 0;
  /** Commands and scripts refused for memory (OOM) in this keyspace's life. */
  oomRefusals = 0;
  /** Inside `asReplica`: the limit is not applied (a replica obeys its primary, not its own maxmemory). */
  private replicating = false;
  /**
   * Keys whose value object other holders may share (a snapshot, a replica, a clone): copied before
   * this keyspace first changes it in place, so that copies are made only of values that change
   * (a replica used to copy every key a script named, on every script call).
   */
  private readonly shared = new Set<string>();
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

  /** Sets a key's value, which becomes this keyspace's own (the caller keeps no reference to change). */
  setRaw(key: string, value: Value | undefined): void {
    this.put(key, value, false);
  }

  private put(key: string, value: Value | undefined, shared: boolean): void {
    this.changes++;
    const old = this.data.get(key);
    if (old !== undefined) this.bytes -= valueBytes(key, old, this.shared.has(key));
    this.shared.delete(key);
    if (value === undefined || value.size === 0) this.data.delete(key);
    else {
      this.data.set(key, value);
      this.bytes += valueBytes(key, value, shared);
      if (shared) this.shared.add(key);
    }
  }

  /** The value of a key this keyspace is about to change in place: its own copy if it was shared. */
  private own<V extends Value>(key: string, value: V): V {
    if (!this.shared.has(key)) return value;
    const copy = copyValue(value) as V;
    this.data.set(key, copy);
    this.shared.delete(key);
    return copy;
  }

  /** An independent copy (a replica's full resync, a crash that keeps its data): both share every value until one changes it. */
  clone(nowMs: () => number = this.nowMs): Keyspace {
    const copy = new Keyspace(nowMs, this.scriptMode, this.scriptBudget);
    for (const [key, value] of this.data) {
      copy.data.set(key, value);
      copy.shared.add(key);
      this.shared.add(key);
    }
    copy.bytes = this.bytes;
    return copy;
  }

  /**
   * These keys' values (undefined where a key does not exist): a script's effects. The values are
   * shared, not copied: read them or `restore` them, never change them.
   */
  snapshot(keys: readonly string[]): [string, Value | undefined][] {
    return keys.map((k) => {
      const v = this.data.get(k);
      if (v !== undefined) this.shared.add(k);
      return [k, v];
    });
  }

  /** Applies a snapshot taken on another keyspace (as a replica applies a script's effects). */
  restore(entries: readonly [string, Value | undefined][]): void {
    for (const [k, v] of entries) this.put(k, v, true);
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
    if (script.twin && this.scriptMode === 'twin') {
      if (this.limit === undefined) return this.runTwin(script, keys, args);
      return this.asScript(COMPAT, () => this.runTwin(script, keys, args));
    }
    if (script.twin && this.scriptMode === 'compare') return this.compareTwin(script, keys, args);
    return this.evalNamed(script.lua, keys, args, script.name);
  }

  /** The Lua text of a script, named for budget findings, under Redis's memory rules (a `#!lua flags=…` first line is Redis 7's). */
  private evalNamed(lua: string, keys: readonly string[], args: readonly string[], name?: string): Reply {
    const { flags, body } = scriptShebang(lua);
    const run = () => runLua(body, keys, args, (cmd, a) => this.exec(cmd, a), this.scriptBudget, name ?? scriptSha(lua));
    if (this.limit === undefined && !flags.declared) return run();
    return this.asScript(flags, run);
  }

  private runTwin(script: ScriptDef, keys: readonly string[], args: readonly string[]): Reply {
    try {
      if (this.scriptBudget === undefined) return luaToReply(script.twin!(this.twinRedis, keys, args));
      this.twinSteps = 0;
      this.twinScript = script.name;
      return luaToReply(script.twin!(this.countedTwinRedis, keys, args));
    } catch (err) {
      // Worded as the Lua reports a failed redis.call (lua-engine.ts: the shadowed call is line 1).
      if (err instanceof RedisError && !script.twinErrorsBare) throw new RedisError(`${err.message} script: ${scriptSha(script.lua)}, on @user_script:1.`);
      throw err;
    }
  }

  /**
   * The Lua here, the twin on a copy of the script's KEYS (a script touches no other key): their
   * replies (or both failing) and the keys' values afterwards must be equal.
   */
  private compareTwin(script: ScriptDef, keys: readonly string[], args: readonly string[]): Reply {
    // Under a memory limit both sides start after this server's evictions, and the copy is as full as
    // this server (evicting nothing itself), so the OOM rule decides alike on both.
    if (this.limit !== undefined && !this.replicating) this.evictIfNeeded();
    const copy = new Keyspace(this.nowMs, 'twin', this.scriptBudget);
    copy.restore(this.snapshot(keys));
    if (this.limit !== undefined && !this.replicating) {
      copy.limit = { maxmemory: this.limit.maxmemory, policy: 'noeviction' };
      copy.tenantBytes = this.usedMemory - copy.bytes;
    }
    const twin = outcomeOf(() => (copy.limit === undefined ? copy.runTwin(script, keys, args) : copy.asScript(COMPAT, () => copy.runTwin(script, keys, args))));
    const lua = outcomeOf(() => this.evalNamed(script.lua, keys, args, script.name));
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

  /** EVAL: the Lua text in Redis's Lua 5.1 against this keyspace (a `#!lua flags=…` first line is Redis 7's). */
  eval(lua: string, keys: readonly string[], args: readonly string[]): Reply {
    return this.evalNamed(lua, keys, args);
  }

  /**
   * Runs a script under Redis's memory rules: evictions first; then, over the limit, a script that
   * declared flags without allow-oom or no-writes is refused whole, and one without flags runs until
   * its first memory-growing write before any write (see `exec`).
   */
  private asScript(flags: ScriptFlags, run: () => Reply): Reply {
    let oom = false;
    if (this.limit !== undefined && !this.replicating) {
      this.evictIfNeeded();
      oom = this.usedMemory > this.limit.maxmemory;
      if (oom && flags.declared && !flags.allowOom && !flags.noWrites) throw this.refuse();
    }
    this.script = { oom, dirty: false, flags };
    try {
      return run();
    } finally {
      this.script = null;
    }
  }

  private refuse(): Error {
    this.oomRefusals++;
    return oomError();
  }

  /**
   * Runs `fn` as a replica applies its primary's stream: no memory limit is applied (Redis's
   * replicas ignore maxmemory by default; their primary's evictions reach them as DELs).
   */
  asReplica<T>(fn: () => T): T {
    this.replicating = true;
    try {
      return fn();
    } finally {
      this.replicating = false;
    }
  }

  /** The memory estimate of this keyspace plus what another tenant holds: Redis's `used_memory` less its empty base. */
  get usedMemory(): number {
    return this.bytes + this.tenantBytes;
  }

  /** The estimate recomputed from the data (what `usedMemory` keeps up incrementally, for tests). */
  recomputedBytes(): number {
    let n = 0;
    for (const [key, value] of this.data) n += valueBytes(key, value);
    return n;
  }

  /** Sets or lifts (undefined) `maxmemory` and its policy, as CONFIG SET does. */
  setMemoryLimit(limit: MemoryLimit | undefined): void {
    this.limit = limit;
    if (limit === undefined) this.access.clear();
  }

  get memoryLimit(): MemoryLimit | undefined {
    return this.limit;
  }

  /** Another tenant of this server takes (or, with 0, frees) this many bytes. */
  setTenantBytes(bytes: number): void {
    this.tenantBytes = bytes;
  }

  /** The keys evicted since the last call. */
  takeEvicted(): string[] {
    const out = this.evicted;
    if (out.length > 0) this.evicted = [];
    return out;
  }

  /**
   * Redis's eviction before a command, with an `allkeys-*` policy: whole keys, one at a time, until
   * the estimate is back under the limit or nothing is left. LRU and LFU are exact here (Redis
   * samples 5 keys and picks the best of them); ties go to the first key by name. `volatile-*`
   * evicts only keys with a TTL, and this keyspace sets none: it then refuses as `noeviction`.
   */
  private evictIfNeeded(): void {
    const limit = this.limit!;
    if (!limit.policy.startsWith('allkeys-')) return;
    while (this.usedMemory > limit.maxmemory && this.data.size > 0) {
      const key = this.evictionVictim(limit);
      this.bytes -= valueBytes(key, this.data.get(key)!, this.shared.has(key));
      this.data.delete(key);
      this.shared.delete(key);
      this.access.delete(key);
      this.evicted.push(key);
      this.evictions++;
    }
  }

  private evictionVictim(limit: MemoryLimit): string {
    const keys = this.keys();
    if (limit.policy === 'allkeys-random') return keys[Math.floor((limit.random ?? (() => 0))() * keys.length)]!;
    const lfu = limit.policy === 'allkeys-lfu';
    let best = keys[0]!;
    let bestAccess = this.access.get(best) ?? { tick: 0, count: 0 };
    for (const key of keys) {
      const a = this.access.get(key) ?? { tick: 0, count: 0 };
      const better = lfu ? a.count < bestAccess.count || (a.count === bestAccess.count && a.tick < bestAccess.tick) : a.tick < bestAccess.tick;
      if (better) {
        best = key;
        bestAccess = a;
      }
    }
    return best;
  }

  /** The memory rules before one command: see `asScript` for scripts, and Redis's for a command on its own. */
  private checkMemory(cmd: string, args: readonly string[]): void {
    const limit = this.limit;
    const script = this.script;
    if (script !== null && WRITE_COMMANDS.has(cmd)) {
      if (script.flags.noWrites) throw new RedisError('ERR Write commands are not allowed from read-only scripts.');
      if (limit !== undefined && script.oom && !script.dirty && !script.flags.allowOom && DENY_OOM_COMMANDS.has(cmd)) throw this.refuse();
      script.dirty = true;
    }
    if (limit === undefined || this.replicating) return;
    if (script === null && cmd !== 'eval' && cmd !== 'evalsha') {
      this.evictIfNeeded();
      if (DENY_OOM_COMMANDS.has(cmd) && this.usedMemory > limit.maxmemory) throw this.refuse();
    }
    this.tick++;
    const touched = cmd === 'del' || cmd === 'exists' ? args : args.length > 0 && cmd !== 'time' && cmd !== 'script' && cmd !== 'flushall' && cmd !== 'eval' && cmd !== 'evalsha' ? [args[0]!] : [];
    for (const key of touched) {
      if (!this.data.has(key)) continue;
      const a = this.access.get(key);
      if (a) {
        a.tick = this.tick;
        a.count++;
      } else this.access.set(key, { tick: this.tick, count: 1 });
    }
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

  /** A key's sorted set; `write`: to change in place (made this keyspace's own first). */
  private zset(key: string, create: boolean, write = false): SortedSet | undefined {
    const v = this.data.get(key);
    if (v === undefined) {
      if (!create) return undefined;
      const z = new SortedSet();
      this.data.set(key, z);
      this.bytes += KEY_BYTES + stringBytes(key);
      return z;
    }
    if (!(v instanceof SortedSet)) throw new RedisError(WRONGTYPE);
    return write ? this.own(key, v) : v;
  }

  /** A key's hash; `write`: to change in place (made this keyspace's own first). */
  private hash(key: string, create: boolean, write = false): Map<string, string> | undefined {
    const v = this.data.get(key);
    if (v === undefined) {
      if (!create) return undefined;
      const h = new Map<string, string>();
      this.data.set(key, h);
      this.bytes += KEY_BYTES + stringBytes(key);
      return h;
    }
    if (v instanceof SortedSet) throw new RedisError(WRONGTYPE);
    return write ? this.own(key, v) : v;
  }

  private dropIfEmpty(key: string): void {
    if (this.data.get(key)?.size === 0) {
      this.data.delete(key);
      this.shared.delete(key);
      this.bytes -= KEY_BYTES + stringBytes(key);
    }
  }

  exec(command: string, args: readonly string[]): Reply {
    // Scripts name commands in lower case: only other spellings pay for a new string.
    const cmd = ARITY.has(command) ? command : command.toLowerCase();
    const arity = ARITY.get(cmd);
    if (arity !== undefined && (arity > 0 ? args.length + 1 !== arity : args.length + 1 < -arity)) {
      throw new RedisError(`ERR wrong number of arguments for '${cmd}' command`);
    }
    if (this.limit !== undefined || this.script !== null) this.checkMemory(cmd, args);
    const key = args[0] ?? '';
    switch (cmd) {
      case 'zadd':
        return this.zadd(key, args);
      case 'zrem': {
        const z = this.zset(key, false, true);
        let n = 0;
        // Indexes, not slice: a command's arguments are one array per call on the hot path.
        for (let i = 1; i < args.length; i++) {
          if (z?.delete(args[i]!)) {
            n++;
            this.bytes -= ZSET_MEMBER_BYTES + stringBytes(args[i]!);
          }
        }
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
        const h = this.hash(key, true, true)!;
        let added = 0;
        let changed = false;
        for (let i = 1; i < args.length; i += 2) {
          const old = h.get(args[i]!);
          if (old === undefined) {
            added++;
            this.bytes += HASH_FIELD_BYTES + stringBytes(args[i]!) + stringBytes(args[i + 1]!);
          } else this.bytes += stringBytes(args[i + 1]!) - stringBytes(old);
          if (old !== args[i + 1]) changed = true;
          h.set(args[i]!, args[i + 1]!);
        }
        if (changed) this.changes++;
        return added;
      }
      case 'hget':
        return this.hash(key, false)?.get(args[1] ?? '') ?? null;
      case 'hdel': {
        const h = this.hash(key, false, true);
        let n = 0;
        for (let i = 1; i < args.length; i++) {
          const old = h?.get(args[i]!);
          if (old !== undefined) {
            h!.delete(args[i]!);
            n++;
            this.bytes -= HASH_FIELD_BYTES + stringBytes(args[i]!) + stringBytes(old);
          }
        }
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
        const h = this.hash(key, true, true)!;
        const had = h.has(args[1] ?? '');
        const current = had ? parseInteger(h.get(args[1] ?? '')) : 0;
        const next = current + parseInteger(args[2]);
        const field = args[1] ?? '';
        this.bytes += had ? String(next).length - h.get(field)!.length : HASH_FIELD_BYTES + stringBytes(field) + String(next).length;
        h.set(field, String(next));
        if (next !== current || !had) this.changes++;
        return next;
      }
      case 'del': {
        let n = 0;
        for (const k of args) {
          const v = this.data.get(k);
          if (v === undefined) continue;
          this.bytes -= valueBytes(k, v, this.shared.has(k));
          this.data.delete(k);
          this.shared.delete(k);
          n++;
        }
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
        this.shared.clear();
        this.bytes = 0;
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
    const z = this.zset(key, !xx, true);
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
        this.bytes += ZSET_MEMBER_BYTES + stringBytes(member);
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
