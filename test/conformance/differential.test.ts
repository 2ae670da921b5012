import fc from 'fast-check';
import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { Keyspace, type ScriptMode } from '../../src/redis/keyspace.js';
import { ALL_SCRIPTS } from '../../src/queue/scripts/index.js';
import type { ScriptDef } from '../../src/redis/script.js';
import { commandArb, normaliseReply, type Cmd } from '../../src/testing/differential.js';
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
          const redisReply = normaliseReply(await redis.client.eval(def.lua, keys.length, ...keys, ...args));
          expect(simReply, `${name} ${JSON.stringify([keys, args])}`).toEqual(redisReply);
        }
        expect(ks.dump()).toEqual(await redisDump(redis.client));
      }),
      { numRuns: Math.max(20, Math.round(RUNS / 5)) },
    );
  }, 600_000);
});
