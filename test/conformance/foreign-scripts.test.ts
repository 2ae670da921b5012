import { describe, expect, it } from 'vitest';
import type { ScriptDef } from '../../src/redis/script.js';
import { Keyspace } from '../../src/redis/keyspace.js';
import { world } from '../sim/fixtures.js';
import { redisRequired, redisServerBinary, useRedisClient } from '../support/redis-server.js';

/**
 * Scripts dynoq did not write (and has no twin for) run on the simulated store in Redis's Lua: a
 * token-bucket rate limiter and a BullMQ-style "move the next job to active" script, on one
 * in-process keyspace and across a replicated Dynomite topology, with the replies a redis-server
 * gives for the same calls, and every replica converging on redis-server's state.
 */
const available = redisServerBinary() !== null;
if (!available && redisRequired) throw new Error('REQUIRE_REDIS=1 but redis-server is not installed');

const rateLimiter: ScriptDef = {
  name: 'tokenBucket',
  keyCount: 1,
  writes: true,
  lua: `local capacity, per_ms, now, cost = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
local state = redis.call('HGETALL', KEYS[1])
local tokens, last = capacity, now
for i = 1, #state, 2 do
  if state[i] == 'tokens' then tokens = tonumber(state[i + 1]) end
  if state[i] == 'last' then last = tonumber(state[i + 1]) end
end
tokens = math.min(capacity, tokens + (now - last) * per_ms)
local allowed = 0
if tokens >= cost then tokens = tokens - cost allowed = 1 end
redis.call('HSET', KEYS[1], 'tokens', tokens, 'last', now)
return {allowed, math.floor(tokens), tostring(tokens)}`,
};

const moveToActive: ScriptDef = {
  name: 'moveToActive',
  keyCount: 3,
  writes: true,
  lua: `local wait, active, jobs = KEYS[1], KEYS[2], KEYS[3]
local ids = redis.call('ZRANGE', wait, 0, 0)
if #ids == 0 then return nil end
local id = ids[1]
redis.call('ZREM', wait, id)
redis.call('ZADD', active, ARGV[1], id)
local attempts = redis.call('HINCRBY', jobs, id .. ':attempts', 1)
local data = cjson.decode(redis.call('HGET', jobs, id) or '{}')
data.attempts = attempts
data.lockedBy = ARGV[2]
redis.call('HSET', jobs, id, cjson.encode(data))
return {id, cjson.encode(data)}`,
};

const addJob: ScriptDef = {
  name: 'addJob',
  keyCount: 2,
  writes: true,
  lua: `redis.call('HSET', KEYS[2], ARGV[1], cjson.encode({name = ARGV[1], priority = tonumber(ARGV[2])}))
return redis.call('ZADD', KEYS[1], ARGV[2], ARGV[1])`,
};

type Call = readonly [ScriptDef, readonly string[], readonly string[]];
const CALLS: Call[] = [
  [rateLimiter, ['rl'], ['5', '0.002', '1000', '2']],
  [rateLimiter, ['rl'], ['5', '0.002', '1100', '2']],
  [rateLimiter, ['rl'], ['5', '0.002', '1150', '2']],
  [rateLimiter, ['rl'], ['5', '0.002', '1900', '3']],
  [addJob, ['{q}:wait', '{q}:jobs'], ['job-b', '2']],
  [addJob, ['{q}:wait', '{q}:jobs'], ['job-a', '1']],
  [moveToActive, ['{q}:wait', '{q}:active', '{q}:jobs'], ['1700000000000', 'worker-1']],
  [moveToActive, ['{q}:wait', '{q}:active', '{q}:jobs'], ['1700000000001', 'worker-2']],
  [moveToActive, ['{q}:wait', '{q}:active', '{q}:jobs'], ['1700000000002', 'worker-3']],
];

describe.runIf(available)('scripts that are not dynoq’s run on the simulated store as on Redis', () => {
  const redis = useRedisClient();

  async function onRedis(): Promise<{ replies: unknown[]; state: Keyspace['dump'] extends () => infer R ? R : never }> {
    await redis.client.flushall();
    const replies: unknown[] = [];
    for (const [def, keys, args] of CALLS) replies.push(await redis.client.eval(def.lua, keys.length, ...keys, ...args));
    // the same calls' effects, read back into a keyspace dump for comparison
    const mirror = new Keyspace();
    for (const key of (await redis.client.keys('*')).sort()) {
      if ((await redis.client.type(key)) === 'zset') {
        const flat = await redis.client.zrange(key, 0, -1, 'WITHSCORES');
        for (let i = 0; i < flat.length; i += 2) mirror.exec('zadd', [key, flat[i + 1]!, flat[i]!]);
      } else {
        for (const [f, v] of Object.entries(await redis.client.hgetall(key))) mirror.exec('hset', [key, f, v]);
      }
    }
    return { replies, state: mirror.dump() };
  }

  it('on one in-process keyspace: same replies, same final state', async () => {
    const expected = await onRedis();
    const ks = new Keyspace();
    expect(CALLS.map(([def, keys, args]) => ks.runScript(def, keys, args))).toEqual(expected.replies);
    expect(ks.dump()).toEqual(expected.state);
  });

  it('across a replicated Dynomite topology (DC_QUORUM): same replies, every replica converges', async () => {
    const expected = await onRedis();
    const w = world('dynomite', ['a', 'b', 'c'], 20);
    const client = w.client('app', 'a', { consistency: 'DC_QUORUM' });
    const replies: unknown[] = [];
    for (const [def, keys, args] of CALLS) replies.push(await w.settle(client.runScript(def, keys, args)));
    await w.advance(1_000);
    expect(replies).toEqual(expected.replies);
    for (const node of w.topology.nodes) expect(node.keyspace.dump(), node.name).toEqual(expected.state);
  });
});
