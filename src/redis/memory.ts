import { RedisError } from './redis-error.js';

/**
 * Redis's memory rules, as the in-process keyspace applies them (measured on redis-server 7.0 by
 * test/conformance/differential.test.ts and test/redis/memory-estimate.test.ts).
 *
 * **The estimate.** A keyspace's memory is the sum, over its keys, of a fixed cost per key plus a
 * fixed cost per hash field or sorted-set member plus the bytes of its strings. The fixed costs
 * stand for Redis's dict entries, object headers, skiplist nodes and allocator rounding with the
 * encodings a queue's keys take once they hold more than a few entries (hashtable, skiplist). It
 * counts the dataset only: a simulated node's `used_memory` is this estimate plus what another
 * tenant occupies, without the ~1 MB an empty redis-server already uses, so a simulated `maxmemory`
 * is a limit on the data (a real one is that plus the server's own base).
 */
export const KEY_BYTES = 72;
/** A hash field: its dict entry and two strings' headers. */
export const HASH_FIELD_BYTES = 72;
/** A sorted-set member: a skiplist node, a dict entry, its score and its string's header. */
export const ZSET_MEMBER_BYTES = 88;

/** `maxmemory-policy`: what Redis does when a command would start over `maxmemory`. */
export type EvictionPolicy =
  | 'noeviction'
  | 'allkeys-lru'
  | 'allkeys-lfu'
  | 'allkeys-random'
  | 'volatile-lru'
  | 'volatile-lfu'
  | 'volatile-random'
  | 'volatile-ttl';

/**
 * A keyspace's limit: `maxmemory` bytes (of the estimate), the policy, and `random` (in [0, 1)) for
 * `allkeys-random`, drawn from the simulation's seed so an eviction is the same on every replay.
 */
export interface MemoryLimit {
  readonly maxmemory: number;
  readonly policy: EvictionPolicy;
  readonly random?: () => number;
}

/** Commands that change data (Redis's `write` flag): the first one a script runs makes it "dirty". */
export const WRITE_COMMANDS: ReadonlySet<string> = new Set(['zadd', 'zrem', 'hset', 'hdel', 'hincrby', 'del', 'flushall']);

/** Write commands that can grow memory (Redis's `denyoom` flag): refused while over `maxmemory`. */
export const DENY_OOM_COMMANDS: ReadonlySet<string> = new Set(['zadd', 'hset', 'hincrby']);

/** Redis's reply to a memory-growing command while over `maxmemory`. */
export const OOM = "OOM command not allowed when used memory > 'maxmemory'.";

export function oomError(): RedisError {
  return new RedisError(OOM);
}

/** Flags a Redis 7 script declares on a `#!lua flags=…` first line. */
export interface ScriptFlags {
  /** A `#!lua` line is present: the script is not in "compatibility mode". */
  readonly declared: boolean;
  readonly allowOom: boolean;
  readonly noWrites: boolean;
}

const NO_FLAGS: ScriptFlags = { declared: false, allowOom: false, noWrites: false };

/**
 * The flags of a script's shebang and its text without that line (kept as an empty line, so that
 * line numbers stay the script's). A text without `#!` is returned as it is.
 */
export function scriptShebang(lua: string): { readonly flags: ScriptFlags; readonly body: string } {
  if (!lua.startsWith('#!')) return { flags: NO_FLAGS, body: lua };
  const end = lua.indexOf('\n');
  const line = end < 0 ? lua : lua.slice(0, end);
  const body = end < 0 ? '' : lua.slice(end);
  const m = /^#!(\S+)(.*)$/.exec(line)!;
  if (m[1] !== 'lua') throw new RedisError(`ERR Could not find engine '${m[1]}'`);
  const flags = new Set<string>();
  for (const part of m[2]!.trim().split(/\s+/).filter((p) => p !== '')) {
    if (!part.startsWith('flags=')) throw new RedisError(`ERR Unknown lua shebang option: ${part}`);
    for (const f of part.slice('flags='.length).split(',')) if (f !== '') flags.add(f);
  }
  for (const f of flags) {
    if (!['no-writes', 'allow-oom', 'allow-stale', 'no-cluster', 'allow-cross-slot-keys'].includes(f)) throw new RedisError(`ERR Unexpected flag in script shebang: ${f}`);
  }
  return { flags: { declared: true, allowOom: flags.has('allow-oom'), noWrites: flags.has('no-writes') }, body };
}

/**
 * A string's bytes in the estimate: its length, which is its size for the ASCII keys, ids and JSON
 * the queue writes (a non-ASCII character counts one byte, not two to four: counting them would
 * cost a scan of every payload written, on the simulator's hot path).
 */
export function stringBytes(s: string): number {
  return s.length;
}
