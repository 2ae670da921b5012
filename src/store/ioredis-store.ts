import { createHash } from 'node:crypto';
import type { Cluster, Redis } from 'ioredis';
import { clientSafetyProblems } from './client-safety.js';
import { UnsafeClientError, UnsupportedStoreFeatureError } from './errors.js';
import { runScriptOnMockData } from './mock-script-runner.js';
import type { ScriptDef, ScriptReply } from './script.js';
import type { RangeLimit, ScoreBound, ScoredMember, Store, ZAddOptions } from './store.js';
import { formatBound } from './store.js';

/** Which server is behind the client: real Redis (standalone, Sentinel, Cluster) or ioredis-mock. */
export type IoredisFlavor = 'redis' | 'mock';

export interface IoredisStoreOptions {
  /** Defaults to 'mock' when the client is an ioredis-mock instance, else 'redis'. */
  readonly flavor?: IoredisFlavor;
  /**
   * What to do with a client whose settings can run a script twice or hang (see `connect()`):
   * 'refuse' (default) throws `UnsafeClientError`; 'warn' emits a process warning once; 'off' accepts it.
   * ioredis-mock is never checked.
   */
  readonly clientCheck?: 'refuse' | 'warn' | 'off';
}

type Client = Redis | Cluster;

/** ioredis-mock's class is bundled as `_RedisMock`; matching the name keeps ioredis-mock out of production imports. */
function detectFlavor(client: Client): IoredisFlavor {
  return /RedisMock/.test(client.constructor.name) ? 'mock' : 'redis';
}

function toNumberOrNull(v: unknown): number | null {
  if (v === null || v === undefined) return null;
  return Number(v);
}

/**
 * Lua replies normalised to what real Redis sends: ioredis-mock (fengari, Lua 5.3) returns `false`
 * for nil and floats where Redis truncates to integers.
 */
function normaliseReply(v: unknown): ScriptReply {
  if (v === null || v === undefined || v === false) return null;
  if (typeof v === 'number') return Math.trunc(v);
  if (typeof v === 'string') return v;
  if (Buffer.isBuffer(v)) return v.toString();
  if (Array.isArray(v)) return v.map(normaliseReply);
  // ioredis-mock hands back an empty Lua table as an opaque proxy object rather than [].
  return [];
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
  const lo = boundValue(min);
  const hi = boundValue(max);
  const aboveMin = typeof min === 'object' ? score > lo : score >= lo;
  const belowMax = typeof max === 'object' ? score < hi : score <= hi;
  return aboveMin && belowMax;
}

/**
 * The Store over an ioredis client, an ioredis Cluster or ioredis-mock.
 * Scripts run by EVALSHA with one EVAL fallback on NOSCRIPT (the server may have restarted or
 * failed over since the script was first loaded).
 */
export class IoredisStore implements Store {
  readonly flavor: IoredisFlavor;
  private readonly shas = new Map<ScriptDef, string>();

  constructor(
    readonly client: Client,
    options: IoredisStoreOptions = {},
  ) {
    this.flavor = options.flavor ?? detectFlavor(client);
    const check = options.clientCheck ?? 'refuse';
    if (this.flavor === 'redis' && check !== 'off') {
      const problems = clientSafetyProblems(client);
      if (problems.length > 0) {
        if (check === 'refuse') throw new UnsafeClientError(problems);
        process.emitWarning(new UnsafeClientError(problems).message, { type: 'DynoqUnsafeClient', code: 'UNSAFE_CLIENT' });
      }
    }
  }

  async zadd(key: string, entries: readonly ScoredMember[], options: ZAddOptions = {}): Promise<number> {
    if (entries.length === 0) return 0;
    const args: (string | number)[] = [];
    if (options.nx) args.push('NX');
    if (options.xx) args.push('XX');
    if (options.ch) args.push('CH');
    for (const e of entries) args.push(String(e.score), e.member);
    return Number(await this.client.zadd(key, ...(args as [string])));
  }

  async zrem(key: string, members: readonly string[]): Promise<number> {
    if (members.length === 0) return 0;
    return Number(await this.client.zrem(key, ...members));
  }

  async zscore(key: string, member: string): Promise<number | null> {
    return toNumberOrNull(await this.client.zscore(key, member));
  }

  async zrank(key: string, member: string): Promise<number | null> {
    return toNumberOrNull(await this.client.zrank(key, member));
  }

  async zcard(key: string): Promise<number> {
    return Number(await this.client.zcard(key));
  }

  async zrangeByScore(key: string, min: ScoreBound, max: ScoreBound, limit?: RangeLimit): Promise<string[]> {
    if (this.flavor === 'mock' && hasFraction(min, max)) {
      return (await this.mockRange(key, min, max, limit)).map((e) => e.member);
    }
    const args = limit ? ['LIMIT', limit.offset, limit.count] : [];
    return (await this.client.zrangebyscore(key, formatBound(min), formatBound(max), ...(args as []))) as string[];
  }

  async zrangeByScoreWithScores(
    key: string,
    min: ScoreBound,
    max: ScoreBound,
    limit?: RangeLimit,
  ): Promise<ScoredMember[]> {
    if (this.flavor === 'mock' && hasFraction(min, max)) return this.mockRange(key, min, max, limit);
    const args = limit ? ['LIMIT', limit.offset, limit.count] : [];
    const flat = (await this.client.zrangebyscore(
      key,
      formatBound(min),
      formatBound(max),
      'WITHSCORES',
      ...(args as []),
    )) as string[];
    return pairs(flat);
  }

  /**
   * ioredis-mock parses fractional bounds as integers; widen the bounds to whole numbers, then
   * filter and apply LIMIT here.
   */
  private async mockRange(key: string, min: ScoreBound, max: ScoreBound, limit?: RangeLimit): Promise<ScoredMember[]> {
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

  async hset(key: string, field: string, value: string): Promise<number> {
    return Number(await this.client.hset(key, field, value));
  }

  async hget(key: string, field: string): Promise<string | null> {
    return (await this.client.hget(key, field)) ?? null;
  }

  async hdel(key: string, fields: readonly string[]): Promise<number> {
    if (fields.length === 0) return 0;
    return Number(await this.client.hdel(key, ...fields));
  }

  async hlen(key: string): Promise<number> {
    return Number(await this.client.hlen(key));
  }

  async hgetall(key: string): Promise<Record<string, string>> {
    return this.client.hgetall(key);
  }

  async del(keys: readonly string[]): Promise<number> {
    let removed = 0;
    // One DEL per key: in a Cluster the keys of different queues may live in different slots.
    for (const key of keys) removed += Number(await this.client.del(key));
    return removed;
  }

  async time(): Promise<number> {
    const [sec, micros] = (await this.client.time()) as [string | number, string | number];
    return Number(sec) * 1000 + Math.floor(Number(micros) / 1000);
  }

  async wait(replicas: number, timeoutMs: number): Promise<number> {
    if (this.flavor === 'mock') throw new UnsupportedStoreFeatureError('WAIT (durable writes)', 'ioredis-mock');
    return Number(await this.client.wait(replicas, timeoutMs));
  }

  async runScript(script: ScriptDef, keys: readonly string[], args: readonly string[]): Promise<ScriptReply> {
    if (this.flavor === 'mock') {
      const data = (this.client as unknown as { data: Parameters<typeof runScriptOnMockData>[0] }).data;
      return runScriptOnMockData(data, script, keys, args, () => Date.now());
    }
    const sha = this.sha(script);
    try {
      return normaliseReply(await this.client.evalsha(sha, keys.length, ...keys, ...args));
    } catch (err) {
      if (!(err instanceof Error) || !err.message.startsWith('NOSCRIPT')) throw err;
      return normaliseReply(await this.client.eval(script.lua, keys.length, ...keys, ...args));
    }
  }

  private sha(script: ScriptDef): string {
    let sha = this.shas.get(script);
    if (sha === undefined) {
      sha = createHash('sha1').update(script.lua).digest('hex');
      this.shas.set(script, sha);
    }
    return sha;
  }
}

function pairs(flat: readonly string[]): ScoredMember[] {
  const out: ScoredMember[] = [];
  for (let i = 0; i < flat.length; i += 2) out.push({ member: flat[i]!, score: Number(flat[i + 1]) });
  return out;
}
