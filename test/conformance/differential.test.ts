import fc from 'fast-check';
import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { Keyspace, type ScriptMode } from '../../src/redis/keyspace.js';
import { ALL_SCRIPTS } from '../../src/queue/scripts/index.js';
import type { ScriptDef } from '../../src/redis/script.js';
import { SCRIPT_NOW, scriptNamed, scriptRunsArb } from '../support/script-calls.js';
import { redisRequired, redisServerBinary, useRedisClient } from '../support/redis-server.js';

/**
 * Differential conformance: the simulated keyspace against a real redis-server on the same random
 * command sequences and on every script with random arguments. Every reply and the final state must
 * be equal: each script runs in the in-process Redis's Lua, and twinned ones as their JS twin too.
 * DYNOQ_DIFF_RUNS sets the number of sequences (CI: 300; long runs: 10000).
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
  const redis = useRedisClient();

  it('every command reply and the final state agree', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(commandArb, { minLength: 1, maxLength: 25 }), async (cmds) => {
        await redis.client.flushall();
        const ks = new Keyspace();
        for (const cmd of cmds) expect(onSim(ks, cmd), JSON.stringify(cmd)).toEqual(await onRedis(redis.client, cmd));
        expect(ks.dump()).toEqual(await redisDump(redis.client));
      }),
      { numRuns: RUNS },
    );
  }, 600_000);

  /** Every script in the in-process Lua, and those with a twin in twin mode too. */
  const cases = ALL_SCRIPTS.flatMap((s) => (s.twin ? ['lua', 'twin'] : ['lua']).map((mode) => [s.name, mode, s] as [string, ScriptMode, ScriptDef]));
  it.each(cases)('script %s (%s) on the simulated keyspace and on Redis agree', async (_name, mode, script) => {
    await fc.assert(
      fc.asyncProperty(scriptRunsArb(script), async (runs) => {
        await redis.client.flushall();
        const ks = new Keyspace(() => SCRIPT_NOW, mode);
        for (const { name, keys, args } of runs) {
          const def = scriptNamed(name);
          const simReply = ks.runScript(def, keys, args);
          const redisReply = normalise(await redis.client.eval(def.lua, keys.length, ...keys, ...args));
          expect(simReply, `${name} ${JSON.stringify([keys, args])}`).toEqual(redisReply);
        }
        expect(ks.dump()).toEqual(await redisDump(redis.client));
      }),
      { numRuns: Math.max(20, Math.round(RUNS / 5)) },
    );
  }, 600_000);
});
