import { UnsupportedOnStoreError } from '../errors/dynoq-errors.js';
import { createHash } from 'node:crypto';
import type { Cluster, Redis } from 'ioredis';
import { clientSafetyProblems } from './client-safety.js';
import { DatabaseRefusedError, EvictionPolicyError, UnsafeClientError, typedStoreError } from './errors.js';
import { checkEvictionPolicy } from './eviction-policy.js';
import { verifyDatabase, wantedDatabase } from './database.js';
import type { ScriptDef, ScriptReply } from '../redis/script.js';
import type { RangeLimit, ScoreBound, ScoredMember, Store, ZAddOptions } from './store.js';
import { formatBound, pairs } from './store.js';

export interface IoredisStoreOptions {
  /**
   * What to do with a client whose settings can run a script twice or hang (see `connect()`):
   * 'refuse' (default) throws `UnsafeClientError`; 'warn' emits a process warning once; 'off' accepts it.
   */
  readonly clientCheck?: 'refuse' | 'warn' | 'off';
  /**
   * The client talks to a Dynomite node: the queue then refuses serverTime and durable writes,
   * `time()` and `wait()` fail here without sending (Dynomite closes the connection on TIME and
   * WAIT, failing everything in flight on it), and scripts always go as EVAL (a backend restarted
   * empty loses its script cache; its NOSCRIPT is outvoted and that replica would silently skip
   * every EVALSHA write from then on).
   */
  readonly dynomite?: boolean;
  /**
   * What to do, before the first command, with a Redis whose `maxmemory-policy` can evict the queue's
   * keys (`allkeys-lru`, `allkeys-lfu`, `allkeys-random`; read with `INFO memory` from the server, or
   * every master of a Cluster): 'refuse' (default) fails every command with `EvictionPolicyError`;
   * 'warn' emits a process warning once; 'off' does not look.
   */
  readonly evictionCheck?: 'refuse' | 'warn' | 'off';
}

type Client = Redis | Cluster;

function toNumberOrNull(v: unknown): number | null {
  if (v === null || v === undefined) return null;
  return Number(v);
}

/** A Lua reply as the client hands it over (ioredis gives Buffers only when asked) in the Store's shape. */
function normaliseReply(v: unknown): ScriptReply {
  if (v === null || v === undefined) return null;
  if (typeof v === 'number' || typeof v === 'string') return v;
  if (Buffer.isBuffer(v)) return v.toString();
  if (Array.isArray(v)) return v.map(normaliseReply);
  throw new TypeError(`unexpected script reply ${String(v)}`);
}

/**
 * The Store over a real Redis through ioredis: a standalone server, Sentinel or a Cluster.
 * Scripts run by EVALSHA with one EVAL fallback on NOSCRIPT (the server may have restarted or
 * failed over since the script was first loaded). ioredis-mock has its own store
 * (`IoredisMockStore`).
 */
export class IoredisStore implements Store {
  private readonly shas = new Map<ScriptDef, string>();
  readonly replication?: 'dynomite';
  /** True once the start checks passed: the client's database (other than 0) and the eviction policy. */
  private started = false;
  private startCheck: Promise<void> | undefined;
  private readonly db: number;
  private readonly evictionCheck: 'refuse' | 'warn' | 'off';

  constructor(
    readonly client: Client,
    options: IoredisStoreOptions = {},
  ) {
    if (options.dynomite) this.replication = 'dynomite';
    this.db = wantedDatabase(client);
    this.evictionCheck = options.evictionCheck ?? 'refuse';
    this.started = this.db === 0 && this.evictionCheck === 'off';
    const check = options.clientCheck ?? 'refuse';
    if (check !== 'off') {
      const problems = clientSafetyProblems(client);
      if (problems.length > 0) {
        if (check === 'refuse') throw new UnsafeClientError(problems);
        process.emitWarning(new UnsafeClientError(problems).message, { type: 'DynoqUnsafeClient', code: 'UNSAFE_CLIENT' });
      }
    }
  }

  async zadd(key: string, entries: readonly ScoredMember[], options: ZAddOptions = {}): Promise<number> {
    if (entries.length === 0) return this.send(async () => 0);
    const args: (string | number)[] = [];
    if (options.nx) args.push('NX');
    if (options.xx) args.push('XX');
    if (options.ch) args.push('CH');
    for (const e of entries) args.push(String(e.score), e.member);
    return this.send(async () => Number(await this.client.zadd(key, ...(args as [string]))));
  }

  zrem(key: string, members: readonly string[]): Promise<number> {
    return this.send(async () => (members.length === 0 ? 0 : Number(await this.client.zrem(key, ...members))));
  }

  zscore(key: string, member: string): Promise<number | null> {
    return this.send(async () => toNumberOrNull(await this.client.zscore(key, member)));
  }

  zrank(key: string, member: string): Promise<number | null> {
    return this.send(async () => toNumberOrNull(await this.client.zrank(key, member)));
  }

  zcard(key: string): Promise<number> {
    return this.send(async () => Number(await this.client.zcard(key)));
  }

  zrangeByScore(key: string, min: ScoreBound, max: ScoreBound, limit?: RangeLimit): Promise<string[]> {
    const args = limit ? ['LIMIT', limit.offset, limit.count] : [];
    return this.send(async () => (await this.client.zrangebyscore(key, formatBound(min), formatBound(max), ...(args as []))) as string[]);
  }

  zrangeByScoreWithScores(key: string, min: ScoreBound, max: ScoreBound, limit?: RangeLimit): Promise<ScoredMember[]> {
    const args = limit ? ['LIMIT', limit.offset, limit.count] : [];
    return this.send(async () =>
      pairs((await this.client.zrangebyscore(key, formatBound(min), formatBound(max), 'WITHSCORES', ...(args as []))) as string[]),
    );
  }

  hset(key: string, field: string, value: string): Promise<number> {
    return this.send(async () => Number(await this.client.hset(key, field, value)));
  }

  hget(key: string, field: string): Promise<string | null> {
    return this.send(async () => (await this.client.hget(key, field)) ?? null);
  }

  hdel(key: string, fields: readonly string[]): Promise<number> {
    return this.send(async () => (fields.length === 0 ? 0 : Number(await this.client.hdel(key, ...fields))));
  }

  hlen(key: string): Promise<number> {
    return this.send(async () => Number(await this.client.hlen(key)));
  }

  hgetall(key: string): Promise<Record<string, string>> {
    return this.send(() => this.client.hgetall(key));
  }

  del(keys: readonly string[]): Promise<number> {
    return this.send(async () => {
      let removed = 0;
      // One call per key: in a Cluster the keys of different queues may live in different slots.
      // UNLINK, not DEL: the reply is the same, and a big sorted set or hash (a million messages) is
      // freed in the background instead of blocking Redis for the whole O(N) free.
      for (const key of keys) removed += Number(await this.client.unlink(key));
      return removed;
    });
  }

  time(): Promise<number> {
    // refused before anything is sent, the start checks included
    if (this.replication === 'dynomite') return Promise.reject(new UnsupportedOnStoreError('TIME', 'Dynomite', 'it closes the connection on TIME'));
    return this.send(async () => {
      const [sec, micros] = (await this.client.time()) as [string | number, string | number];
      return Number(sec) * 1000 + Math.floor(Number(micros) / 1000);
    });
  }

  wait(replicas: number, timeoutMs: number): Promise<number> {
    // refused before anything is sent, the start checks included
    if (this.replication === 'dynomite') return Promise.reject(new UnsupportedOnStoreError('WAIT', 'Dynomite', 'it closes the connection on WAIT'));
    return this.send(async () => {
      return Number(await this.client.wait(replicas, timeoutMs));
    });
  }

  runScript(script: ScriptDef, keys: readonly string[], args: readonly string[]): Promise<ScriptReply> {
    return this.send(async () => {
      if (this.replication === 'dynomite') return normaliseReply(await this.client.eval(script.lua, keys.length, ...keys, ...args));
      const sha = this.sha(script);
      try {
        return normaliseReply(await this.client.evalsha(sha, keys.length, ...keys, ...args));
      } catch (err) {
        if (!(err instanceof Error) || !err.message.startsWith('NOSCRIPT')) throw err;
        return normaliseReply(await this.client.eval(script.lua, keys.length, ...keys, ...args));
      }
    });
  }

  /**
   * The script and WAIT in one pipeline: ioredis sends a pipeline to the node that owns its keys'
   * slot (EVALSHA's keys decide it; WAIT has none), over one connection, so WAIT counts the replicas
   * of the master that ran the write. On NOSCRIPT (the script did not run) the pair is sent again
   * with EVAL.
   */
  async runScriptThenWait(
    script: ScriptDef,
    keys: readonly string[],
    args: readonly string[],
    replicas: number,
    timeoutMs: number,
  ): Promise<{ reply: ScriptReply; confirmed: number }> {
    if (!this.started) await this.start();
    const send = async (byText: boolean) => {
      const pipeline = this.client.pipeline();
      if (byText) pipeline.eval(script.lua, keys.length, ...keys, ...args);
      else pipeline.evalsha(this.sha(script), keys.length, ...keys, ...args);
      pipeline.wait(replicas, timeoutMs);
      const results = (await pipeline.exec()) ?? [];
      const [scriptErr, reply] = results[0] ?? [new Error('empty pipeline reply'), null];
      const [waitErr, confirmed] = results[1] ?? [new Error('empty pipeline reply'), null];
      return { scriptErr, reply, waitErr, confirmed };
    };
    let r = await send(false);
    if (r.scriptErr instanceof Error && r.scriptErr.message.startsWith('NOSCRIPT')) r = await send(true);
    if (r.scriptErr) throw typedStoreError(r.scriptErr);
    if (r.waitErr) throw typedStoreError(r.waitErr);
    return { reply: normaliseReply(r.reply), confirmed: Number(r.confirmed) };
  }

  /** One command: the start checks first (once), then the command, Redis's OOM refusal typed as StoreFullError. */
  private async send<T>(command: () => Promise<T>): Promise<T> {
    if (!this.started) await this.start();
    try {
      return await command();
    } catch (err) {
      throw typedStoreError(err);
    }
  }

  /**
   * Before the first command: on a database other than 0, a refused SELECT makes every command fail
   * with `DatabaseRefusedError` instead of running in database 0 (see verifyDatabase); then the
   * eviction policy of every node written to is read (see checkEvictionPolicy).
   */
  private start(): Promise<void> {
    this.startCheck ??= (async () => {
      if (this.db !== 0) await verifyDatabase(this.client);
      if (this.evictionCheck !== 'off') await checkEvictionPolicy(this.client, this.evictionCheck);
    })().then(
      () => {
        this.started = true;
      },
      (err: unknown) => {
        // A refusal is final; a connection error may pass on the next command.
        if (!(err instanceof DatabaseRefusedError) && !(err instanceof EvictionPolicyError)) this.startCheck = undefined;
        throw err;
      },
    );
    return this.startCheck;
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
