import type { ScriptDef, ScriptReply } from '../../redis/script.js';
import { typedStoreError } from '../../store/errors.js';
import type { RangeLimit, ScoreBound, ScoredMember, Store, ZAddOptions } from '../../store/store.js';
import { formatBound, formatScoreArg } from '../../store/store.js';
import { repliesAreVotes, type CallProbe } from './call-probe.js';
import type { Connection } from './connection.js';
export { CallProbe } from './call-probe.js';
import type { Kernel } from '../kernel/kernel.js';
import type { Observations } from '../kernel/observations.js';
import { isWrite, type NodeReply, type StoreOp } from './store-op.js';
import type { Topology } from './topology.js';
import type { Trace } from '../kernel/trace.js';
import { watchWrite } from './write-owner.js';

/** A request that got no answer in time: it may or may not have been applied. */
export class SimTimeoutError extends Error {
  constructor(readonly op: string) {
    super(`Command timed out: ${op}`);
    this.name = 'SimTimeoutError';
  }
}

/** An error reply (or a refused connection) from a simulated node. */
export class SimReplyError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SimReplyError';
  }
}


// OOM too: Redis refuses a memory-growing command before running it, and a script only at a write
// that comes before any other write of it (src/redis/memory.ts), so an OOM reply applied nothing.
const REFUSED_BEFORE_APPLY = /^(ECONNREFUSED|READONLY|OOM )/;

/** After its Dynomite node dies, when a client's calls in flight fail (DYNOMITE.md: 0.1–0.2 s, first at 111 ms). */
export const CLIENT_SEES_DEATH_MS = 150;
/** After its node dies, when the opt-in failover client has moved to the next node (its reconnect cycle, ~0.2 s). */
export const CLIENT_FAILOVER_MS = 200;
/** What those calls fail with: ioredis's error, which does not mean "never sent". */
export const NODE_DIED_ERROR = 'MaxRetriesPerRequestError: Reached the max retries per request limit (which is 1)';

interface SimStoreOptions {
  readonly requestTimeoutMs: number;
  /** On a refused connection, switch to the next zone's node (Dyno's client failover). */
  readonly failoverOnRefused: boolean;
  readonly zones: readonly string[];
  /** Records the writes of the calls made through this store (none for the reaper's store). */
  readonly probe?: CallProbe;
  readonly observations?: Observations;
  /**
   * Scripts as IoredisStore sends them to plain Redis: EVALSHA, with one EVAL on NOSCRIPT. Off by
   * default: the simulated clients send EVAL, as IoredisStore does on Dynomite.
   */
  readonly evalsha?: boolean;
}

function opName(op: StoreOp): string {
  return op.kind === 'cmd' ? op.cmd : op.kind === 'script' ? op.script.name : op.kind;
}

/**
 * The Store seam over a simulated topology, for one client connection. Every call is a request on
 * virtual time; replies reach the client through its timers (a paused client hears them late).
 */
export class SimStore implements Store {
  readonly replication?: 'dynomite';
  readonly racks?: number;
  /** The requests in flight on this connection, to fail when the server closes it. */
  private readonly inFlight = new Set<(r: NodeReply) => void>();
  /** Requests in flight when the connection was reset (ConnectionReset): their replies never arrive. */
  private readonly repliesLost = new Set<(r: NodeReply) => void>();

  constructor(
    private readonly kernel: Kernel,
    private readonly topology: Topology,
    readonly connection: Connection,
    private readonly trace: Trace,
    private readonly options: SimStoreOptions,
  ) {
    if (topology.kind === 'dynomite') {
      this.replication = 'dynomite';
      this.racks = topology.nodes.length;
    }
    connection.close = (error) => {
      for (const fail of [...this.inFlight]) fail({ ok: false, error });
    };
    // As ioredis with connect()'s settings on a Dynomite node that dies (measured): the calls in
    // flight fail with MaxRetriesPerRequestError within 0.1–0.2 s (not after the request timeout;
    // they may have run), and the opt-in failover client moves on its reconnect cycle, ~0.2 s, idle or not.
    connection.nodeDied = () => {
      const deadZone = connection.nodeZone;
      kernel.after(CLIENT_SEES_DEATH_MS, () => {
        if (connection.nodeZone === deadZone) connection.close?.(NODE_DIED_ERROR);
      });
      if (options.failoverOnRefused) {
        kernel.after(CLIENT_FAILOVER_MS, () => {
          if (connection.nodeZone === deadZone) this.failover();
        });
      }
    };
    topology.attach?.(connection);
  }

  private request(op: StoreOp): Promise<ScriptReply> {
    const conn = this.connection;
    const effects = this.options.probe?.effects;
    if (effects && isWrite(op)) watchWrite(op, () => effects.note());
    return new Promise((resolve, reject) => {
      let settled = false;
      const finish = (r: NodeReply | 'timeout') => {
        if (settled || (r !== 'timeout' && this.repliesLost.has(finish))) return;
        settled = true;
        timeout.cancel();
        this.inFlight.delete(finish);
        this.repliesLost.delete(finish);
        if (this.options.probe && isWrite(op) && (r === 'timeout' || r.ok || !REFUSED_BEFORE_APPLY.test(r.error))) {
          this.options.probe.writeMayHaveApplied(repliesAreVotes(this), effects ?? null);
        }
        this.trace.record({
          t: this.kernel.now,
          actor: conn.actor,
          op: opName(op),
          args: op.kind === 'cmd' ? op.args : op.kind === 'script' ? [op.keys, op.args] : op.kind === 'wait' ? [op.replicas, op.timeoutMs] : [],
          result: r === 'timeout' ? 'timeout' : r.ok ? r.value : { error: r.error },
        });
        conn.timers.deliver(() => {
          if (r === 'timeout') return reject(new SimTimeoutError(opName(op)));
          if (r.ok) return resolve(r.value);
          if (r.error.startsWith('ECONNREFUSED') && this.options.failoverOnRefused) this.failover();
          reject(typedStoreError(new SimReplyError(r.error)));
        });
      };
      const timeout = this.kernel.quietAfter(this.options.requestTimeoutMs, () => finish('timeout'));
      if (conn.nodeZone !== conn.zone) this.options.observations?.emit('remote', { actor: conn.actor, nodeZone: conn.nodeZone });
      this.inFlight.add(finish);
      this.topology.handle(conn, op, finish);
      if (!settled && conn.reset && conn.reset.left > 0 && --conn.reset.left === 0) this.resetConnection();
    });
  }

  /** The server reset this connection (ConnectionReset): what is in flight on it never hears back. */
  private resetConnection(): void {
    for (const finish of this.inFlight) this.repliesLost.add(finish);
    this.trace.record({ t: this.kernel.now, actor: this.connection.actor, op: 'connection-reset', args: this.connection.role });
  }

  private failover(): void {
    const zones = this.options.zones;
    const conn = this.connection;
    conn.nodeZone = zones[(zones.indexOf(conn.nodeZone) + 1) % zones.length]!;
    this.trace.record({ t: this.kernel.now, actor: conn.actor, op: 'client-failover', args: conn.nodeZone });
  }

  private cmd(cmd: string, ...args: string[]): Promise<ScriptReply> {
    return this.request({ kind: 'cmd', cmd, args });
  }

  async zadd(key: string, entries: readonly ScoredMember[], options: ZAddOptions = {}): Promise<number> {
    if (entries.length === 0) return 0;
    const flags = [options.nx && 'NX', options.xx && 'XX', options.ch && 'CH'].filter((f): f is string => !!f);
    return Number(await this.cmd('zadd', key, ...flags, ...entries.flatMap((e) => [formatScoreArg(e.score), e.member])));
  }

  async zrem(key: string, members: readonly string[]): Promise<number> {
    return members.length === 0 ? 0 : Number(await this.cmd('zrem', key, ...members));
  }

  async zscore(key: string, member: string): Promise<number | null> {
    const r = await this.cmd('zscore', key, member);
    return r === null ? null : Number(r);
  }

  async zrank(key: string, member: string): Promise<number | null> {
    const r = await this.cmd('zrank', key, member);
    return r === null ? null : Number(r);
  }

  async zcard(key: string): Promise<number> {
    return Number(await this.cmd('zcard', key));
  }

  private limitArgs(limit?: RangeLimit): string[] {
    return limit ? ['LIMIT', String(limit.offset), String(limit.count)] : [];
  }

  async zrangeByScore(key: string, min: ScoreBound, max: ScoreBound, limit?: RangeLimit): Promise<string[]> {
    return (await this.cmd('zrangebyscore', key, formatBound(min), formatBound(max), ...this.limitArgs(limit))) as string[];
  }

  async zrangeByScoreWithScores(key: string, min: ScoreBound, max: ScoreBound, limit?: RangeLimit): Promise<ScoredMember[]> {
    const flat = (await this.cmd(
      'zrangebyscore',
      key,
      formatBound(min),
      formatBound(max),
      'WITHSCORES',
      ...this.limitArgs(limit),
    )) as string[];
    const out: ScoredMember[] = [];
    for (let i = 0; i < flat.length; i += 2) out.push({ member: flat[i]!, score: Number(flat[i + 1]) });
    return out;
  }

  async hset(key: string, field: string, value: string): Promise<number> {
    return Number(await this.cmd('hset', key, field, value));
  }

  async hget(key: string, field: string): Promise<string | null> {
    return (await this.cmd('hget', key, field)) as string | null;
  }

  async hdel(key: string, fields: readonly string[]): Promise<number> {
    return fields.length === 0 ? 0 : Number(await this.cmd('hdel', key, ...fields));
  }

  async hlen(key: string): Promise<number> {
    return Number(await this.cmd('hlen', key));
  }

  async hgetall(key: string): Promise<Record<string, string>> {
    const flat = (await this.cmd('hgetall', key)) as string[];
    const out: Record<string, string> = {};
    for (let i = 0; i < flat.length; i += 2) out[flat[i]!] = flat[i + 1]!;
    return out;
  }

  async del(keys: readonly string[]): Promise<number> {
    return keys.length === 0 ? 0 : Number(await this.cmd('del', ...keys));
  }

  async time(): Promise<number> {
    const [sec, micros] = (await this.cmd('time')) as [string, string];
    return Number(sec) * 1000 + Math.floor(Number(micros) / 1000);
  }

  async wait(replicas: number, timeoutMs: number): Promise<number> {
    return Number(await this.request({ kind: 'wait', replicas, timeoutMs }));
  }

  runScript(script: ScriptDef, keys: readonly string[], args: readonly string[]): Promise<ScriptReply> {
    if (!this.options.evalsha) return this.request({ kind: 'script', script, keys, args });
    return this.evalsha(script, keys, args);
  }

  private async evalsha(script: ScriptDef, keys: readonly string[], args: readonly string[]): Promise<ScriptReply> {
    try {
      return await this.request({ kind: 'script', script, keys, args, viaSha: true });
    } catch (err) {
      if (!(err instanceof SimReplyError) || !err.message.startsWith('NOSCRIPT')) throw err;
      return this.request({ kind: 'script', script, keys, args });
    }
  }
}
