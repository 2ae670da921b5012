import type { ScriptDef, ScriptReply } from '../redis/script.js';

/**
 * A score bound for ZRANGEBYSCORE. Numbers are inclusive; `{ exclusive: n }` is Redis's `(n`.
 */
export type ScoreBound = number | '-inf' | '+inf' | { readonly exclusive: number };

export interface ZAddOptions {
  /** Only add new members (never update). */
  readonly nx?: boolean;
  /** Only update existing members (never add). */
  readonly xx?: boolean;
  /** Return the number of changed members instead of added ones. */
  readonly ch?: boolean;
}

export interface RangeLimit {
  readonly offset: number;
  readonly count: number;
}

export interface ScoredMember {
  readonly member: string;
  readonly score: number;
}

/**
 * The store seam: the Redis command subset the queue uses plus atomic scripts.
 * Replies are normalised: numbers are numbers and a missing value is `null`, whatever the backend.
 */
export interface Store {
  /**
   * How the store behind this connection replicates, where the queue must know: 'dynomite' means
   * every replica re-executes each write and script on its own state and clock and there is no WAIT
   * (DYNOMITE.md). Absent: a single Redis or a primary with replicas.
   */
  readonly replication?: 'dynomite';
  /** Dynomite: how many racks (replicas) there are, when known; one rack has nothing to diverge from. */
  readonly racks?: number;
  zadd(key: string, entries: readonly ScoredMember[], options?: ZAddOptions): Promise<number>;
  zrem(key: string, members: readonly string[]): Promise<number>;
  zscore(key: string, member: string): Promise<number | null>;
  zrank(key: string, member: string): Promise<number | null>;
  zcard(key: string): Promise<number>;
  zrangeByScore(key: string, min: ScoreBound, max: ScoreBound, limit?: RangeLimit): Promise<string[]>;
  zrangeByScoreWithScores(
    key: string,
    min: ScoreBound,
    max: ScoreBound,
    limit?: RangeLimit,
  ): Promise<ScoredMember[]>;
  hset(key: string, field: string, value: string): Promise<number>;
  hget(key: string, field: string): Promise<string | null>;
  hdel(key: string, fields: readonly string[]): Promise<number>;
  hlen(key: string): Promise<number>;
  hgetall(key: string): Promise<Record<string, string>>;
  del(keys: readonly string[]): Promise<number>;
  /** The server's clock in milliseconds (Redis TIME). */
  time(): Promise<number>;
  /** Redis WAIT: blocks until `replicas` replicas acknowledged earlier writes or `timeoutMs` passed. */
  wait(replicas: number, timeoutMs: number): Promise<number>;
  runScript(script: ScriptDef, keys: readonly string[], args: readonly string[]): Promise<ScriptReply>;
  /**
   * Optional: runs a script and then WAIT on the **same connection to the same node**, so the replicas
   * counted are those of the node that ran the write (on Redis Cluster a bare WAIT has no key and goes
   * to any master). A store without it gets `runScript` then `wait`.
   */
  runScriptThenWait?(
    script: ScriptDef,
    keys: readonly string[],
    args: readonly string[],
    replicas: number,
    timeoutMs: number,
  ): Promise<{ reply: ScriptReply; confirmed: number }>;
}

/** Redis's textual form of a score bound. */
export function formatBound(bound: ScoreBound): string {
  if (typeof bound === 'number') return formatScoreArg(bound);
  if (bound === '-inf' || bound === '+inf') return bound;
  return `(${formatScoreArg(bound.exclusive)}`;
}

/** A number as an argument Redis parses back to the same double. */
export function formatScoreArg(n: number): string {
  if (n === Infinity) return '+inf';
  if (n === -Infinity) return '-inf';
  return String(n);
}

/** A flat [member, score, ...] reply as scored members. */
export function pairs(flat: readonly string[]): ScoredMember[] {
  const out: ScoredMember[] = [];
  for (let i = 0; i < flat.length; i += 2) out.push({ member: flat[i]!, score: Number(flat[i + 1]) });
  return out;
}
