import fc from 'fast-check';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Keyspace } from '../../src/sim/keyspace/keyspace.js';
import { ALL_SCRIPTS } from '../../src/store/scripts/index.js';
import { commandArb, normaliseReply, scriptCalls, type Cmd } from '../../src/testing/differential.js';
import type { ScriptDef } from '../../src/store/script.js';
import { redisRequired, redisServerBinary, startRedisServer, type RedisServer } from '../support/redis-server.js';

/**
 * Differential conformance: the simulated keyspace against a real redis-server on the same random
 * command sequences and on every script with random arguments. Every reply and the final state must
 * be equal. DYNOQ_DIFF_RUNS sets the number of sequences (CI: 300; long runs: 10000).
 */
const RUNS = Number(process.env.DYNOQ_DIFF_RUNS ?? 300);
const available = redisServerBinary() !== null;
if (!available && redisRequired) throw new Error('REQUIRE_REDIS=1 but redis-server is not installed');

async function onRedis(client: Redis, cmd: Cmd): Promise<unknown> {
  try {
    return normaliseReply(await client.call(cmd[0], ...cmd.slice(1)));
  } catch (err) {
    return { error: (err as Error).message.split(' ')[0] };
  }
}

function onSim(ks: Keyspace, cmd: Cmd): unknown {
  try {
    return normaliseReply(ks.exec(cmd[0], cmd.slice(1)));
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

  const calls = scriptCalls;

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
          const redisReply = normaliseReply(await client.eval(def.lua, keys.length, ...keys, ...args));
          expect(simReply, `${name} ${JSON.stringify([keys, args])}`).toEqual(redisReply);
        }
        expect(ks.dump()).toEqual(await redisDump(client));
      }),
      { numRuns: Math.max(20, Math.round(RUNS / 5)) },
    );
  }, 600_000);
});
