import fc from 'fast-check';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Keyspace } from '../../src/redis/keyspace.js';
import { ALL_SCRIPTS } from '../../src/queue/scripts/index.js';
import type { ScriptDef } from '../../src/redis/script.js';
import { redisRequired, redisServerBinary, startRedisServer, type RedisServer } from '../support/redis-server.js';

/**
 * Differential conformance: the simulated keyspace against a real redis-server on the same random
 * command sequences and on every script with random arguments. Every reply and the final state must
 * be equal. DYNOQ_DIFF_RUNS sets the number of sequences (CI: 300; long runs: 10000).
 */
const RUNS = Number(process.env.DYNOQ_DIFF_RUNS ?? 300);
const available = redisServerBinary() !== null;
if (!available && redisRequired) throw new Error('REQUIRE_REDIS=1 but redis-server is not installed');

type Cmd = [string, ...string[]];

const zkey = fc.constantFrom('z1', 'z2');
const hkey = fc.constantFrom('h1', 'h2');
const member = fc.constantFrom('a', 'b', 'c', 'd', 'aa', 'B');
const score = fc.constantFrom('0', '1', '1.5', '-2', '2.5', '10', '1700000000123.05', '+inf', '-inf', '0.1', '3');
const bound = fc.oneof(score, score.map((s) => (s.includes('inf') ? s : `(${s}`)));
const field = fc.constantFrom('f', 'g', 'n');
const value = fc.constantFrom('x', 'y', '7', '-3');

const commandArb: fc.Arbitrary<Cmd> = fc.oneof(
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

function normalise(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(normalise);
  if (Buffer.isBuffer(v)) return v.toString();
  // ioredis turns HGETALL's flat reply into an object even through call().
  if (v !== null && typeof v === 'object') return Object.entries(v).flat();
  return v ?? null;
}

async function onRedis(client: Redis, cmd: Cmd): Promise<unknown> {
  try {
    return normalise(await client.call(cmd[0], ...cmd.slice(1)));
  } catch (err) {
    return { error: (err as Error).message.split(' ')[0] };
  }
}

function onSim(ks: Keyspace, cmd: Cmd): unknown {
  try {
    return normalise(ks.exec(cmd[0], cmd.slice(1)));
  } catch (err) {
    return { error: (err as Error).message.split(' ')[0] };
  }
}

async function redisDump(client: Redis): Promise<unknown> {
  const keys = ((await client.keys('*')) as string[]).sort();
  const out: Record<string, unknown> = {};
  for (const k of keys) {
    const type = await client.type(k);
    if (type === 'zset') {
      const flat = (await client.zrange(k, 0, -1, 'WITHSCORES')) as string[];
      out[k] = Array.from({ length: flat.length / 2 }, (_, i) => [flat[2 * i], flat[2 * i + 1]]);
    } else {
      const h = await client.hgetall(k);
      out[k] = Object.fromEntries(Object.entries(h).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
    }
  }
  return out;
}

describe.runIf(available)('differential conformance: simulated keyspace vs real Redis', () => {
  let server: RedisServer;
  let client: Redis;
  beforeAll(async () => {
    server = await startRedisServer();
    client = new Redis({ host: '127.0.0.1', port: server.port });
  }, 20_000);
  afterAll(async () => {
    client?.disconnect();
    await server?.stop();
  });

  it('every command reply and the final state agree', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(commandArb, { minLength: 1, maxLength: 25 }), async (cmds) => {
        await client.flushall();
        const ks = new Keyspace();
        for (const cmd of cmds) expect(onSim(ks, cmd), JSON.stringify(cmd)).toEqual(await onRedis(client, cmd));
        expect(ks.dump()).toEqual(await redisDump(client));
      }),
      { numRuns: RUNS },
    );
  }, 600_000);

  /** Plausible ARGV for each script over a small id pool, so that scripts hit their interesting paths. */
  const ids = fc.constantFrom('m1', 'm2', 'm3');
  const now = fc.constantFrom('1700000000000', '1700000000500', '1700000005000');
  const head = ['h:msg', 'h:meta', 'h:lease', 'h:counters'];
  const shards = ['z:q:a', 'z:r:a', 'z:u:a', 'z:q:b', 'z:r:b', 'z:u:b'];
  const calls: Record<string, fc.Arbitrary<[string[], string[]]>> = {
    atomicPush: fc
      .tuple(now, fc.constantFrom('0', '1'), fc.array(fc.tuple(fc.constantFrom('1', '2'), ids, fc.constantFrom('0', '5', '50'), fc.constantFrom('0', '1000')), { minLength: 1, maxLength: 3 }))
      .map(([n, absent, ms]) => [[...head, ...shards], [n, '0', absent, ...ms.flatMap(([s, id, p, d]) => [s, id, p, d, `{"id":"${id}","payload":"p ${id}"}`])]]),
    atomicPop: fc.tuple(now, fc.integer({ min: 1, max: 3 })).map(([n, c]) => [[...head, 'z:q:a', 'z:r:a', 'z:u:a'], [n, '0', String(c), '1000']]),
    atomicPopById: fc.tuple(now, ids).map(([n, id]) => [[...head, 'z:q:a', 'z:r:a', 'z:u:a'], [n, '0', id, '1000']]),
    atomicAck: fc.tuple(ids, fc.constantFrom('', '1', '2', '3')).map(([id, t]) => [['h:msg', 'h:meta', 'h:lease', 'z:u:a', 'z:u:b'], [id, t]]),
    atomicAckAndPop: fc
      .tuple(now, fc.integer({ min: 1, max: 3 }), ids, fc.constantFrom('', '1', '2'))
      .map(([n, c, id, t]) => [[...head, 'z:q:a', 'z:r:a', 'z:u:a', 'z:u:a', 'z:u:b'], [n, '0', String(c), '1000', id, t]]),
    atomicExtendLease: fc.tuple(now, ids, fc.constantFrom('', '1', '2')).map(([n, id, t]) => [['h:lease', 'z:u:a', 'z:u:b'], [n, '0', id, t, '500']]),
    atomicRequeueExpired: now.map((n) => [['h:msg', 'h:meta', 'h:lease', 'z:r:a', 'z:u:a'], [n, '0', '10']]),
    atomicReschedule: fc.tuple(now, ids).map(([n, id]) => [['z:q:a', 'z:r:a', 'z:q:b', 'z:r:b'], [n, '0', id, '200']]),
    atomicRemove: ids.map((id) => [['h:msg', 'h:meta', 'h:lease', ...shards], [id]]),
    atomicPeek: fc.tuple(now, fc.integer({ min: 1, max: 3 })).map(([n, c]) => [['h:msg', 'h:meta', 'z:q:a', 'z:r:a'], [n, '0', String(c)]]),
    atomicFindStale: fc.constant([['h:msg', ...shards], ['10']]),
    findByPayloadPattern: fc.tuple(fc.constantFrom('p m%d', '^p', 'zz', 'm2$'), fc.boolean()).map(([p, local]) => [local ? ['h:msg', 'z:q:a', 'z:r:a'] : ['h:msg'], [p]]),
    legacyBulkPopLocal: fc.tuple(fc.array(ids, { minLength: 1, maxLength: 3 }), now).map(([xs, n]) => [['h:msg', 'z:q:a', 'z:u:a'], [String(xs.length), n, '1700000009999', ...xs]]),
    legacyFindStale: fc.array(ids, { minLength: 1, maxLength: 3 }).map((xs) => [['h:msg', 'z:q:a', 'z:u:a'], [String(xs.length), ...xs]]),
    legacyProcessUnacks: now.map((n) => [['h:msg', 'z:q:a', 'z:u:a'], [n, '10']]),
  };

  it.each(ALL_SCRIPTS.map((s) => [s.name, s] as [string, ScriptDef]))('script %s: Lua on Redis and its JS twin agree', async (_name, script) => {
    const call = calls[script.name];
    expect(call, `an argument generator for ${script.name}`).toBeDefined();
    // A random prior state built by the atomic scripts themselves, then the script under test.
    const setup = fc.array(fc.oneof(calls.atomicPush!.map((c) => ['atomicPush', c] as const), calls.atomicPop!.map((c) => ['atomicPop', c] as const), calls.atomicAck!.map((c) => ['atomicAck', c] as const)), { maxLength: 6 });
    const byName = new Map(ALL_SCRIPTS.map((s) => [s.name, s]));
    await fc.assert(
      fc.asyncProperty(setup, fc.array(call!, { minLength: 1, maxLength: 3 }), async (prior, runs) => {
        await client.flushall();
        const ks = new Keyspace(() => 1_700_000_000_000);
        for (const [name, [keys, args]] of [...prior.map(([n, c]) => [n, c] as const), ...runs.map((c) => [script.name, c] as const)]) {
          const def = byName.get(name)!;
          const simReply = ks.runScript(def, keys, args);
          const redisReply = normalise(await client.eval(def.lua, keys.length, ...keys, ...args));
          expect(simReply, `${name} ${JSON.stringify([keys, args])}`).toEqual(redisReply);
        }
        expect(ks.dump()).toEqual(await redisDump(client));
      }),
      { numRuns: Math.max(20, Math.round(RUNS / 5)) },
    );
  }, 600_000);
});
