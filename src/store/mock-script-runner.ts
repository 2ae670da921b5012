import { Keyspace } from '../sim/keyspace/keyspace.js';
import { SortedSet } from '../sim/keyspace/sorted-set.js';
import type { ScriptDef, ScriptReply } from './script.js';

/** ioredis-mock's internal keyspace (v8): zsets are Map(member → {score, value}), hashes plain objects. */
interface MockData {
  get(key: string): unknown;
  set(key: string, value: unknown): void;
  delete(key: string): void;
}

/**
 * ioredis-mock's Lua (fengari) cannot run these scripts: arrays from redis.call arrive 0-based and
 * a table of two or more elements built by index crashes the bridge. On ioredis-mock a script
 * therefore runs as its JS twin, on a scratch copy of the keys it declares, written back at once;
 * all of it synchronous, so nothing interleaves and it is as atomic as EVAL. Scripts touch only
 * their declared KEYS (Redis Cluster requires that anyway).
 */
export function runScriptOnMockData(
  data: MockData,
  script: ScriptDef,
  keys: readonly string[],
  args: readonly string[],
  nowMs: () => number,
): ScriptReply {
  const scratch = new Keyspace(nowMs);
  for (const key of new Set(keys)) {
    const value = data.get(key);
    if (value instanceof Map) {
      const z = new SortedSet();
      for (const [member, entry] of value as Map<string, { score: number }>) z.set(member, Number(entry.score));
      scratch.setRaw(key, z);
    } else if (value !== undefined && typeof value === 'object') {
      scratch.setRaw(key, new Map(Object.entries(value as Record<string, string>)));
    }
  }
  const reply = scratch.runScript(script, keys, args);
  for (const key of new Set(keys)) {
    const value = scratch.raw(key);
    if (value === undefined) data.delete(key);
    else if (value instanceof SortedSet) {
      data.set(key, new Map([...value.entries()].map((e) => [e.member, { score: e.score, value: e.member }])));
    } else {
      data.set(key, Object.fromEntries(value));
    }
  }
  return reply;
}
