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

/**
 * Redis's memory rules (src/redis/memory.ts) on the simulated keyspace against redis-server. Over
 * the limit is `maxmemory 1` on Redis (its own base memory is always over it) and on the keyspace a
 * limit of 1 byte with 2 bytes held by another tenant: both are then over the limit for every
 * command, whatever the data, so every reply, refusal and final state must agree.
 */
describe.runIf(available)('differential conformance: the memory rules (maxmemory) vs real Redis', () => {
  const redis = useRedisClient();

  async function overTheLimit(ks: Keyspace, policy: 'noeviction' | 'allkeys-lru' | 'allkeys-random'): Promise<void> {
    await redis.client.config('SET', 'maxmemory-policy', policy);
    await redis.client.config('SET', 'maxmemory', '1');
    ks.setMemoryLimit({ maxmemory: 1, policy, random: () => 0 });
    ks.setTenantBytes(2);
  }
  async function noLimit(): Promise<void> {
    await redis.client.config('SET', 'maxmemory', '0');
    await redis.client.config('SET', 'maxmemory-policy', 'noeviction');
  }

  /** `before` with no limit, then `after` over it: every reply and the final state agree. */
  async function commandsOverTheLimit(before: readonly Cmd[], after: readonly Cmd[], policy: 'noeviction' | 'allkeys-lru' | 'allkeys-random'): Promise<void> {
    await noLimit();
    await redis.client.flushall();
    const ks = new Keyspace();
    for (const cmd of before) expect(onSim(ks, cmd)).toEqual(await onRedis(redis.client, cmd));
    await overTheLimit(ks, policy);
    try {
      for (const cmd of after) expect(onSim(ks, cmd), JSON.stringify(cmd)).toEqual(await onRedis(redis.client, cmd));
    } finally {
      await noLimit();
    }
    expect(ks.dump()).toEqual(await redisDump(redis.client));
  }

  const stateThenCommands = fc.tuple(fc.array(commandArb, { maxLength: 12 }), fc.array(commandArb, { minLength: 1, maxLength: 12 }));

  it('noeviction: memory-growing commands are refused with OOM, the others run', async () => {
    await fc.assert(
      fc.asyncProperty(stateThenCommands, ([before, after]) => commandsOverTheLimit(before, after, 'noeviction')),
      { numRuns: Math.max(30, Math.round(RUNS / 3)) },
    );
  }, 600_000);

  it('allkeys-lru and allkeys-random: whole keys are evicted before each command, then memory-growing commands are refused', async () => {
    await fc.assert(
      fc.asyncProperty(stateThenCommands, fc.constantFrom('allkeys-lru' as const, 'allkeys-random' as const), ([before, after], policy) =>
        commandsOverTheLimit(before, after, policy),
      ),
      { numRuns: Math.max(20, Math.round(RUNS / 10)) },
    );
  }, 600_000);

  /** A script of random steps: reads, writes that cannot grow memory, memory-growing writes, by call or pcall; maybe a Redis 7 shebang. */
  const STEPS = {
    read: "redis.call('hget', KEYS[1], 'a')",
    hdel: "redis.call('hdel', KEYS[1], 'a')",
    zrem: "redis.call('zrem', KEYS[2], 'm')",
    hset: "redis.call('hset', KEYS[1], 'a', 'v')",
    zadd: "redis.call('zadd', KEYS[2], 1, 'm')",
    pcallHset: "redis.pcall('hset', KEYS[1], 'b', 'v')",
  };
  const scriptArb = fc
    .tuple(
      fc.constantFrom('', '#!lua\n', '#!lua flags=allow-oom\n', '#!lua flags=no-writes\n'),
      fc.array(fc.constantFrom(...(Object.keys(STEPS) as (keyof typeof STEPS)[])), { minLength: 1, maxLength: 5 }),
    )
    .map(([shebang, steps]) => `${shebang}${steps.map((s) => STEPS[s]).join('\n')}\nreturn 1`);

  async function evalOnRedis(lua: string, keys: readonly string[], args: readonly string[]): Promise<unknown> {
    try {
      return normaliseReply(await redis.client.eval(lua, keys.length, ...keys, ...args));
    } catch (err) {
      return { error: (err as Error).message.split(' ')[0] };
    }
  }
  function evalOnSim(run: () => unknown): unknown {
    try {
      return normaliseReply(run() as never);
    } catch (err) {
      return { error: (err as Error).message.split(' ')[0] };
    }
  }

  it('the script rule: a memory-growing write is refused only while the script has written nothing; declared flags refuse or allow up front', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(commandArb, { maxLength: 8 }), fc.array(scriptArb, { minLength: 1, maxLength: 4 }), async (before, scripts) => {
        await noLimit();
        await redis.client.flushall();
        const ks = new Keyspace();
        for (const cmd of before) expect(onSim(ks, cmd)).toEqual(await onRedis(redis.client, cmd));
        await overTheLimit(ks, 'noeviction');
        try {
          for (const lua of scripts) {
            const keys = ['h1', 'z1'];
            expect(evalOnSim(() => ks.eval(lua, keys, [])), lua).toEqual(await evalOnRedis(lua, keys, []));
          }
        } finally {
          await noLimit();
        }
        expect(ks.dump()).toEqual(await redisDump(redis.client));
      }),
      { numRuns: Math.max(30, Math.round(RUNS / 3)) },
    );
  }, 600_000);

  /** The queue's own scripts over the limit: push refused whole, the consumers' scripts run (both modes of running them). */
  const cases = ALL_SCRIPTS.flatMap((s) => (s.twin ? ['lua', 'twin'] : ['lua']).map((mode) => [s.name, mode, s] as [string, ScriptMode, ScriptDef]));
  it.each(cases)('script %s (%s) over the limit agrees with Redis', async (_name, mode, script) => {
    await fc.assert(
      fc.asyncProperty(scriptRunsArb(script), async (runs) => {
        await noLimit();
        await redis.client.flushall();
        const ks = new Keyspace(() => SCRIPT_NOW, mode);
        // the state the earlier runs leave, then the last run over the limit
        const last = runs[runs.length - 1]!;
        for (const { name, keys, args } of runs.slice(0, -1)) {
          const def = scriptNamed(name);
          expect(evalOnSim(() => ks.runScript(def, keys, args))).toEqual(await evalOnRedis(def.lua, keys, args));
        }
        await overTheLimit(ks, 'noeviction');
        try {
          const def = scriptNamed(last.name);
          expect(evalOnSim(() => ks.runScript(def, last.keys, last.args)), `${last.name} ${JSON.stringify([last.keys, last.args])}`).toEqual(
            await evalOnRedis(def.lua, last.keys, last.args),
          );
        } finally {
          await noLimit();
        }
        expect(ks.dump()).toEqual(await redisDump(redis.client));
      }),
      { numRuns: Math.max(10, Math.round(RUNS / 15)) },
    );
  }, 600_000);
});

/** The memory estimate (src/redis/memory.ts) against Redis's used_memory for a queue's keys, within a stated factor. */
describe.runIf(available)('the simulated memory estimate vs used_memory of redis-server', () => {
  const redis = useRedisClient();
  /** The estimate is within this factor of what the same keys add to used_memory (either way). */
  const FACTOR = 1.5;
  const usedMemory = async () => Number(/used_memory:(\d+)/.exec(await redis.client.info('memory'))![1]);

  it.each([
    [2_000, 50],
    [2_000, 400],
    [200, 5_000],
  ])('%i messages of %i bytes pushed, a quarter of them leased', async (count, size) => {
    await redis.client.flushall();
    const base = await usedMemory();
    const ks = new Keyspace(() => SCRIPT_NOW, 'twin');
    const push = scriptNamed('atomicPush');
    const pop = scriptNamed('atomicPop');
    const keys = ['q:msg', 'q:meta', 'q:lease', 'q:counters', 'q:queue', 'q:ready', 'q:unack'];
    for (let i = 0; i < count; i += 100) {
      const args = [String(SCRIPT_NOW), '0', '0', '0'];
      for (let j = i; j < Math.min(count, i + 100); j++) args.push('1', `message-${j}`, '1', '0', JSON.stringify({ id: `message-${j}`, payload: 'p'.repeat(size) }), String(1_700_000_000_000 + j));
      ks.runScript(push, keys, args);
      await redis.client.eval(push.lua, keys.length, ...keys, ...args);
    }
    const popArgs = [String(SCRIPT_NOW), '0', String(Math.floor(count / 4)), '30000', 'token-0', '0'];
    ks.runScript(pop, keys, popArgs);
    await redis.client.eval(pop.lua, keys.length, ...keys, ...popArgs);
    expect(ks.dump()).toEqual(await redisDump(redis.client));
    const real = (await usedMemory()) - base;
    const ratio = ks.usedMemory / real;
    const seen = `simulated ${ks.usedMemory} B, redis-server ${real} B (ratio ${ratio.toFixed(2)})`;
    expect(ratio, seen).toBeGreaterThan(1 / FACTOR);
    expect(ratio, seen).toBeLessThan(FACTOR);
    expect(ks.usedMemory).toBe(ks.recomputedBytes());
  });
});
