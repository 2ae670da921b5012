import type { Redis } from 'ioredis';
import { Keyspace } from '../redis/keyspace.js';
import type { ScriptDef, ScriptReply } from '../redis/script.js';
import { SortedSet } from '../redis/sorted-set.js';
import { UnsupportedStoreFeatureError } from './errors.js';
import { IoredisStore } from './ioredis-store.js';
import type { RangeLimit, ScoreBound, ScoredMember } from './store.js';
import { pairs } from './store.js';

/** ioredis-mock's internal keyspace (v8): zsets are Map(member → {score, value}), hashes plain objects. */
interface MockData {
  get(key: string): unknown;
  set(key: string, value: unknown): void;
  delete(key: string): void;
}

function boundValue(bound: ScoreBound): number {
  if (bound === '-inf') return -Infinity;
  if (bound === '+inf') return Infinity;
  return typeof bound === 'number' ? bound : bound.exclusive;
}

function hasFraction(min: ScoreBound, max: ScoreBound): boolean {
  return [boundValue(min), boundValue(max)].some((v) => Number.isFinite(v) && !Number.isInteger(v));
}

function withinBounds(score: number, min: ScoreBound, max: ScoreBound): boolean {
  const aboveMin = typeof min === 'object' ? score > boundValue(min) : score >= boundValue(min);
  const belowMax = typeof max === 'object' ? score < boundValue(max) : score <= boundValue(max);
  return aboveMin && belowMax;
}

/**
 * The Store over ioredis-mock (8), with its divergences worked around so that they cannot change
 * queue behaviour:
 * - its Lua (fengari, Lua 5.3) is not Redis's: it returns `false` for nil and floats where Redis
 *   truncates, hands `redis.call` arrays over 0-based and cannot build a table by index, and has no
 *   cjson. Scripts therefore run in Redis's own Lua 5.1 (`src/redis`), on an in-process keyspace
 *   holding a copy of the keys the script declares, written back at once; all of it synchronous, so
 *   nothing interleaves and it is as atomic as EVAL. Scripts touch only their declared KEYS (Redis
 *   Cluster requires that anyway);
 * - fractional score bounds are parsed as integers: the bounds are widened and filtered here;
 * - WAIT is unsupported: durable writes raise UnsupportedStoreFeatureError.
 */
export class IoredisMockStore extends IoredisStore {
  /** `client` is an ioredis-mock instance (typed as ioredis's client, whose API it mimics). */
  constructor(client: Redis) {
    // No reconnects, no re-sent scripts: the mock has no connection to lose, so no client check.
    super(client, { clientCheck: 'off' });
  }

  /** No pipeline to one node here: the script in Redis's Lua, then WAIT (which the mock does not have). */
  override async runScriptThenWait(
    script: ScriptDef,
    keys: readonly string[],
    args: readonly string[],
    replicas: number,
    timeoutMs: number,
  ): Promise<{ reply: ScriptReply; confirmed: number }> {
    const reply = await this.runScript(script, keys, args);
    return { reply, confirmed: await this.wait(replicas, timeoutMs) };
  }

  override async zrangeByScore(key: string, min: ScoreBound, max: ScoreBound, limit?: RangeLimit): Promise<string[]> {
    if (!hasFraction(min, max)) return super.zrangeByScore(key, min, max, limit);
    return (await this.fractionalRange(key, min, max, limit)).map((e) => e.member);
  }

  override async zrangeByScoreWithScores(key: string, min: ScoreBound, max: ScoreBound, limit?: RangeLimit): Promise<ScoredMember[]> {
    if (!hasFraction(min, max)) return super.zrangeByScoreWithScores(key, min, max, limit);
    return this.fractionalRange(key, min, max, limit);
  }

  private async fractionalRange(key: string, min: ScoreBound, max: ScoreBound, limit?: RangeLimit): Promise<ScoredMember[]> {
    const lo = boundValue(min);
    const hi = boundValue(max);
    const flat = (await this.client.zrangebyscore(
      key,
      Number.isFinite(lo) ? Math.floor(lo) : '-inf',
      Number.isFinite(hi) ? Math.ceil(hi) : '+inf',
      'WITHSCORES',
    )) as string[];
    const inRange = pairs(flat).filter((e) => withinBounds(e.score, min, max));
    if (!limit) return inRange;
    const end = limit.count < 0 ? undefined : limit.offset + limit.count;
    return inRange.slice(limit.offset, end);
  }

  override async wait(_replicas: number, _timeoutMs: number): Promise<number> {
    throw new UnsupportedStoreFeatureError('WAIT (durable writes)', 'ioredis-mock');
  }

  override async runScript(script: ScriptDef, keys: readonly string[], args: readonly string[]): Promise<ScriptReply> {
    const data = (this.client as unknown as { data: MockData }).data;
    const scratch = new Keyspace(() => Date.now(), 'lua');
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
    try {
      return scratch.runScript(script, keys, args);
    } finally {
      // Effects up to an error stay applied, as on Redis.
      for (const key of new Set(keys)) {
        const value = scratch.raw(key);
        if (value === undefined) data.delete(key);
        else if (value instanceof SortedSet) {
          data.set(key, new Map([...value.entries()].map((e) => [e.member, { score: e.score, value: e.member }])));
        } else {
          data.set(key, Object.fromEntries(value));
        }
      }
    }
  }
}
