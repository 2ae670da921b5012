import fc from 'fast-check';
import type { Cluster, Redis } from 'ioredis';
import { Keyspace } from '../redis/keyspace.js';
import type { ScriptDef } from '../redis/script.js';
import { ALL_SCRIPTS } from '../queue/scripts/index.js';
import { unavailability } from '../store/redis-unavailable.js';

/**
 * Differential conformance: the simulated keyspace against a Redis on the same random command
 * sequences, and every queue script (Lua on Redis, its JS twin on the keyspace) with random
 * arguments from a random prior state. Every reply and the final state must be equal.
 *
 * Keys live under one hash tag per sequence (`{<prefix>-<n>}:…`, so the check also runs on a
 * Cluster) and are deleted before and after each sequence; nothing else on the server is touched.
 */

export type Cmd = [string, ...string[]];

const zkey = fc.constantFrom('z1', 'z2');
const hkey = fc.constantFrom('h1', 'h2');
const member = fc.constantFrom('a', 'b', 'c', 'd', 'aa', 'B');
const score = fc.constantFrom('0', '1', '1.5', '-2', '2.5', '10', '1700000000123.05', '+inf', '-inf', '0.1', '3');
const bound = fc.oneof(score, score.map((s) => (s.includes('inf') ? s : `(${s}`)));
const field = fc.constantFrom('f', 'g', 'n');
const value = fc.constantFrom('x', 'y', '7', '-3');

/** Commands of the Store's subset with the edge cases that matter (flags, bounds, wrong types). */
export const commandArb: fc.Arbitrary<Cmd> = fc.oneof(
  fc
    .tuple(zkey, fc.subarray(['NX', 'XX', 'CH']), fc.array(fc.tuple(score, member), { minLength: 1, maxLength: 3 }))
    .map(([k, flags, pairs]): Cmd => ['zadd', k, ...flags, ...pairs.flat()]),
  fc.tuple(zkey, fc.array(member, { minLength: 1, maxLength: 2 })).map(([k, ms]): Cmd => ['zrem', k, ...ms]),
  fc.tuple(zkey, member).map(([k, m]): Cmd => ['zscore', k, m]),
  fc.tuple(zkey, member).map(([k, m]): Cmd => ['zrank', k, m]),
  zkey.map((k): Cmd => ['zcard', k]),
  fc
    .tuple(zkey, bound, bound, fc.boolean(), fc.option(fc.tuple(fc.integer({ min: 0, max: 3 }), fc.integer({ min: -1, max: 3 }))))
    .map(([k, lo, hi, ws, limit]): Cmd => ['zrangebyscore', k, lo, hi, ...(ws ? ['WITHSCORES'] : []), ...(limit ? ['LIMIT', String(limit[0]), String(limit[1])] : [])]),
  fc
    .tuple(zkey, fc.integer({ min: -4, max: 4 }), fc.integer({ min: -4, max: 4 }), fc.boolean())
    .map(([k, a, b, ws]): Cmd => ['zrange', k, String(a), String(b), ...(ws ? ['WITHSCORES'] : [])]),
  fc.tuple(hkey, field, value).map(([k, f, v]): Cmd => ['hset', k, f, v]),
  fc.tuple(hkey, field).map(([k, f]): Cmd => ['hget', k, f]),
  fc.tuple(hkey, field).map(([k, f]): Cmd => ['hdel', k, f]),
  fc.tuple(hkey, field).map(([k, f]): Cmd => ['hexists', k, f]),
  fc.tuple(hkey, field, fc.constantFrom('1', '-2', '5')).map(([k, f, n]): Cmd => ['hincrby', k, f, n]),
  hkey.map((k): Cmd => ['hlen', k]),
  hkey.map((k): Cmd => ['hgetall', k]),
  fc.constantFrom<Cmd>(['del', 'z1'], ['del', 'h1'], ['zadd', 'h1', '1', 'a'], ['hset', 'z1', 'f', 'v']),
);

/** Plausible ARGV for each script over a small id pool, so that scripts hit their interesting paths. */
const ids = fc.constantFrom('m1', 'm2', 'm3');
const now = fc.constantFrom('1700000000000', '1700000000500', '1700000005000');
const head = ['h:msg', 'h:meta', 'h:lease', 'h:counters'];
/** Client-generated lease tokens and ordering keys, and the settle time (0 off Dynomite, 1 s on it). */
const token = fc.constantFrom('1', '2', '3');
const ord = fc.constantFrom('1', '2', '1700000000000');
const settle = fc.constantFrom('0', '1000');
const shards = ['z:q:a', 'z:r:a', 'z:u:a', 'z:q:b', 'z:r:b', 'z:u:b'];
/** The local shard's queue, ready and unack. */
const localShard = fc.constantFrom(['z:q:a', 'z:r:a', 'z:u:a'], ['z:q:b', 'z:r:b', 'z:u:b']);

export const scriptCalls: Record<string, fc.Arbitrary<[string[], string[]]>> = {
  atomicPush: fc
    .tuple(now, fc.constantFrom('0', '1'), settle, fc.array(fc.tuple(fc.constantFrom('1', '2'), ids, fc.constantFrom('0', '5', '50'), fc.constantFrom('0', '1000'), ord), { minLength: 1, maxLength: 3 }))
    .map(([n, absent, st, ms]) => [[...head, ...shards], [n, '0', absent, st, ...ms.flatMap(([s, id, p, d, o]) => [s, id, p, d, `{"id":"${id}","payload":"p ${id}"}`, o])]]),
  atomicPop: fc
    .tuple(now, fc.integer({ min: 1, max: 3 }), token, settle)
    .map(([n, c, t, st]) => [[...head, 'z:q:a', 'z:r:a', 'z:u:a'], [n, '0', String(c), '1000', t, st]]),
  atomicPromote: fc.tuple(now, settle).map(([n, st]) => [['h:meta', 'z:q:a', 'z:r:a'], [n, '0', st]]),
  atomicPopById: fc.tuple(now, ids, token).map(([n, id, t]) => [[...head, 'z:q:a', 'z:r:a', 'z:u:a'], [n, '0', id, '1000', t]]),
  atomicAck: fc.tuple(ids, fc.constantFrom('', '1', '2', '3')).map(([id, t]) => [['h:msg', 'h:meta', 'h:lease', 'z:u:a', 'z:u:b'], [id, t]]),
  // The local shard is a or b: a script that took the first shard's UNACK for the local one would differ.
  atomicAckAndPop: fc
    .tuple(localShard, now, fc.integer({ min: 1, max: 3 }), ids, fc.constantFrom('', '1', '2'), token, settle)
    .map(([local, n, c, id, t, nt, st]) => [[...head, ...local, 'z:u:a', 'z:u:b'], [n, '0', String(c), '1000', id, t, nt, st]]),
  atomicAckManyAndPop: fc
    .tuple(localShard, now, fc.integer({ min: 0, max: 3 }), fc.array(fc.tuple(ids, fc.constantFrom('', '1', '2')), { maxLength: 3 }), token, settle)
    .map(([local, n, c, acks, nt, st]) => [[...head, ...local, 'z:u:a', 'z:u:b'], [n, '0', String(c), '1000', nt, st, ...acks.flat()]]),
  atomicExtendLease: fc.tuple(now, ids, fc.constantFrom('', '1', '2')).map(([n, id, t]) => [['h:lease', 'z:u:a', 'z:u:b'], [n, '0', id, t, '500']]),
  atomicRequeueExpired: now.map((n) => [['h:msg', 'h:meta', 'h:lease', 'z:r:a', 'z:u:a'], [n, '0', '10']]),
  atomicReschedule: fc.tuple(now, ids).map(([n, id]) => [['z:q:a', 'z:r:a', 'z:q:b', 'z:r:b'], [n, '0', id, '200']]),
  atomicRelease: fc.tuple(ids, fc.constantFrom('', '1', '2')).map(([id, t]) => [['h:msg', 'h:meta', 'h:lease', 'z:r:a', 'z:u:a', 'z:r:b', 'z:u:b'], [id, t]]),
  atomicRemove: ids.map((id) => [['h:msg', 'h:meta', 'h:lease', ...shards], [id]]),
  atomicPeek: fc.tuple(now, fc.integer({ min: 1, max: 3 }), settle).map(([n, c, st]) => [['h:msg', 'h:meta', 'z:q:a', 'z:r:a'], [n, '0', String(c), st]]),
  atomicFindStale: fc.integer({ min: 0, max: shards.length }).map((which) => [['h:msg', ...shards], [String(which), '0', '100']]),
  scanMessages: fc.boolean().map((local) => [local ? ['h:msg', 'z:q:a', 'z:r:a'] : ['h:msg'], ['0', '100']]),
  legacyBulkPopLocal: fc.tuple(fc.array(ids, { minLength: 1, maxLength: 3 }), now).map(([xs, n]) => [['h:msg', 'z:q:a', 'z:u:a'], [String(xs.length), n, '1700000009999', ...xs]]),
  legacyFindStale: fc.array(ids, { minLength: 1, maxLength: 3 }).map((xs) => [['h:msg', 'z:q:a', 'z:u:a'], [String(xs.length), ...xs]]),
  legacyProcessUnacks: now.map((n) => [['h:msg', 'z:q:a', 'z:u:a'], [n, '10']]),
};

/** Every key name the generators use (the keys a sequence may leave behind). */
const KEY_UNIVERSE = ['z1', 'z2', 'h1', 'h2', ...head, ...shards];

/** Replies in one shape: strings, numbers, arrays, null; errors reduced to their code. */
export function normaliseReply(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(normaliseReply);
  if (Buffer.isBuffer(v)) return v.toString();
  // ioredis turns HGETALL's flat reply into an object even through call().
  if (v !== null && typeof v === 'object') return Object.entries(v).flat();
  return v ?? null;
}

type Client = Redis | Cluster;

/** One sequence's keys on the server: `{<prefix>}:<name>`, so every key hashes to one Cluster slot. */
class Namespace {
  constructor(
    readonly client: Client,
    readonly tag: string,
  ) {}
  key(name: string): string {
    return `{${this.tag}}:${name}`;
  }
  async clear(): Promise<void> {
    await this.client.del(...KEY_UNIVERSE.map((k) => this.key(k)));
  }
  async exec(cmd: Cmd): Promise<unknown> {
    try {
      return normaliseReply(await this.client.call(cmd[0], this.key(cmd[1]!), ...cmd.slice(2)));
    } catch (err) {
      // A lost connection is no reply to compare: the check stops on it.
      if (unavailability(err)) throw err;
      return { error: (err as Error).message.split(' ')[0] };
    }
  }
  async dump(): Promise<Record<string, unknown>> {
    const out: Record<string, unknown> = {};
    for (const k of [...KEY_UNIVERSE].sort()) {
      const type = await this.client.type(this.key(k));
      if (type === 'zset') {
        const flat = (await this.client.zrange(this.key(k), 0, -1, 'WITHSCORES')) as string[];
        out[k] = Array.from({ length: flat.length / 2 }, (_, i) => [flat[2 * i], flat[2 * i + 1]]);
      } else if (type === 'hash') {
        const h = await this.client.hgetall(this.key(k));
        out[k] = Object.fromEntries(Object.entries(h).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
      }
    }
    return out;
  }
}

function simExec(ks: Keyspace, cmd: Cmd): unknown {
  try {
    return normaliseReply(ks.exec(cmd[0], cmd.slice(1)));
  } catch (err) {
    return { error: (err as Error).message.split(' ')[0] };
  }
}

/** Objects with their keys sorted (hash fields, key names), arrays kept in order: comparable as JSON. */
function canonical(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(canonical);
  if (v !== null && typeof v === 'object') {
    return Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([k, x]) => [k, canonical(x)]));
  }
  return v;
}

function sortedDump(d: Record<string, unknown>): string {
  return JSON.stringify(canonical(d));
}

function differ(what: string, sim: unknown, redis: unknown): never {
  throw new Error(`${what}: the simulated keyspace replied ${JSON.stringify(sim)}, Redis ${JSON.stringify(redis)}`);
}

interface DifferentialOptions {
  readonly client: Client;
  /** Command sequences to try (default 100). */
  readonly runs?: number;
  readonly seed?: number;
  readonly path?: string;
  /** Also compare every queue script, Lua on Redis against its JS twin (default true). */
  readonly scripts?: boolean;
  /** Hash-tag prefix of the keys used (default `dynoq-diff-<pid>`). */
  readonly keyPrefix?: string;
}

/** Runs the differential check; throws fast-check's report (seed and replay path) on a difference. */
export async function differential(options: DifferentialOptions): Promise<void> {
  const runs = options.runs ?? 100;
  const prefix = options.keyPrefix ?? `dynoq-diff-${process.pid}`;
  const replay = { ...(options.seed !== undefined ? { seed: options.seed } : {}), ...(options.path !== undefined ? { path: options.path } : {}) };
  let n = 0;
  await fc.assert(
    fc.asyncProperty(fc.array(commandArb, { minLength: 1, maxLength: 25 }), async (cmds) => {
      const ns = new Namespace(options.client, `${prefix}-${++n}`);
      await ns.clear();
      try {
        const ks = new Keyspace();
        for (const cmd of cmds) {
          const sim = simExec(ks, cmd);
          const redis = await ns.exec(cmd);
          if (JSON.stringify(sim) !== JSON.stringify(redis)) differ(JSON.stringify(cmd), sim, redis);
        }
        const simState = sortedDump(ks.dump());
        const redisState = sortedDump(await ns.dump());
        if (simState !== redisState) differ('final state', simState, redisState);
      } finally {
        await ns.clear();
      }
    }),
    { numRuns: runs, ...replay },
  );
  if (options.scripts === false) return;
  const byName = new Map(ALL_SCRIPTS.map((s) => [s.name, s]));
  for (const script of ALL_SCRIPTS) await scriptDifferential(options.client, script, byName, `${prefix}-${script.name}`, Math.max(20, Math.round(runs / 5)), replay);
}

async function scriptDifferential(
  client: Client,
  script: ScriptDef,
  byName: Map<string, ScriptDef>,
  prefix: string,
  runs: number,
  replay: { seed?: number; path?: string },
): Promise<void> {
  const call = scriptCalls[script.name];
  if (!call) throw new Error(`no argument generator for script ${script.name}`);
  // A random prior state built by the atomic scripts themselves, then the script under test.
  const setup = fc.array(
    fc.oneof(
      scriptCalls.atomicPush!.map((c) => ['atomicPush', c] as const),
      scriptCalls.atomicPop!.map((c) => ['atomicPop', c] as const),
      scriptCalls.atomicAck!.map((c) => ['atomicAck', c] as const),
    ),
    { maxLength: 6 },
  );
  let n = 0;
  await fc.assert(
    fc.asyncProperty(setup, fc.array(call, { minLength: 1, maxLength: 3 }), async (prior, calls) => {
      const ns = new Namespace(client, `${prefix}-${++n}`);
      await ns.clear();
      try {
        const ks = new Keyspace(() => 1_700_000_000_000);
        for (const [name, [keys, args]] of [...prior.map(([p, c]) => [p, c] as const), ...calls.map((c) => [script.name, c] as const)]) {
          const def = byName.get(name)!;
          const sim = ks.runScript(def, keys, args);
          const redis = normaliseReply(await client.eval(def.lua, keys.length, ...keys.map((k) => ns.key(k)), ...args));
          if (JSON.stringify(sim) !== JSON.stringify(redis)) differ(`${name} ${JSON.stringify([keys, args])}`, sim, redis);
        }
        const simState = sortedDump(ks.dump());
        const redisState = sortedDump(await ns.dump());
        if (simState !== redisState) differ(`final state after ${script.name}`, simState, redisState);
      } finally {
        await ns.clear();
      }
    }),
    { numRuns: runs, ...replay },
  );
}
