import type { Redis } from 'ioredis';
import RedisMock from 'ioredis-mock';
import { describe, expect, it } from 'vitest';
import { UnsupportedStoreFeatureError } from '../../src/store/errors.js';
import { IoredisMockStore } from '../../src/store/ioredis-mock-store.js';
import { atomicPop, atomicPush } from '../../src/queue/scripts/index.js';

/**
 * Each ioredis-mock divergence that would change queue behaviour: first shown on the raw mock (so
 * that a fixed ioredis-mock makes this test say so), then shown handled by the adapter.
 */
describe('ioredis-mock divergences, and how IoredisMockStore handles them', () => {
  let port = 20_000;
  const fresh = () => {
    const mock = new RedisMock({ host: 'divergence', port: port++ });
    return { mock, store: new IoredisMockStore(mock as unknown as Redis) };
  };

  it('fractional score bounds: parsed as integers by the mock, filtered right by the adapter', async () => {
    const { mock, store } = fresh();
    await mock.zadd('z', 1700000000123.05, 'a', 5.5, 'b');
    expect(await mock.zrangebyscore('z', 0, '1700000000123.5')).not.toContain('a');
    expect(await store.zrangeByScore('z', 0, 1700000000123.5)).toEqual(['b', 'a']);
    expect(await store.zrangeByScore('z', { exclusive: 5.5 }, '+inf')).toEqual(['a']);
    expect(await store.zrangeByScoreWithScores('z', 5, 6)).toEqual([{ member: 'b', score: 5.5 }]);
  });

  it('Lua: the mock returns false for nil and floats where Redis sends null and integers', async () => {
    const { mock } = fresh();
    expect(await mock.eval("return redis.call('hget', KEYS[1], 'missing')", 1, 'h')).toBe(false);
    expect(await mock.eval('return 2.7', 0)).toBe(2.7);
  });

  it("Lua: the mock cannot build a table by index (these scripts do); the store runs the script in Redis's Lua", async () => {
    const { mock, store } = fresh();
    const broken = await mock.eval('local t = {} t[1] = 1 t[2] = 2 return t', 0).catch((e: unknown) => e);
    expect(broken).not.toEqual([1, 2]);
    const keys = ['m', 'meta', 'lease', 'counters', 'q', 'r', 'u'];
    await store.runScript(atomicPush, keys, ['1700000000000', '0', '0', '0', '1', 'x', '0', '0', '{"id":"x","payload":"p"}', '1', '1', 'y', '0', '0', '{"id":"y","payload":"q"}', '2']);
    const popped = await store.runScript(atomicPop, keys, ['1700000000000', '0', '2', '1000', 'tok', '0']);
    expect(popped).toEqual(['x', '{"id":"x","payload":"p"}', 'tok', 1700000001000, 'y', '{"id":"y","payload":"q"}', 'tok', 1700000001000]);
    expect(await mock.hget('lease', 'y')).toBe('tok');
  });

  it("Lua: the mock has no cjson and formats numbers as Lua 5.3; the store's Lua is Redis's 5.1 with cjson", async () => {
    const { mock, store } = fresh();
    const noCjson = await mock.eval("return cjson.encode({1})", 0).catch((e: unknown) => e);
    expect(noCjson).not.toBe('[1]');
    expect(await mock.eval('return tostring(3 / 2 * 2)', 0)).toBe('3.0');
    const script = { name: 'probe', keyCount: 0, writes: false, lua: "return {cjson.encode({a = 1}), tostring(3 / 2 * 2), redis.call('hget', 'nope', 'f')}" };
    // false (nil from redis.call) inside a table is a nil bulk in the reply, as Redis sends it
    expect(await store.runScript(script, [], [])).toEqual(['{"a":1}', '3', null]);
  });

  it('Lua errors: a failed redis.call fails the script with Redis 7.0\'s wording, earlier effects stay', async () => {
    const { mock, store } = fresh();
    await mock.zadd('z', 1, 'a');
    const script = { name: 'probe', keyCount: 2, writes: true, lua: "redis.call('hset', KEYS[1], 'f', 'v') return redis.call('hget', KEYS[2], 'f')" };
    await expect(store.runScript(script, ['h', 'z'], [])).rejects.toThrow(/^WRONGTYPE Operation against a key holding the wrong kind of value script: [0-9a-f]{40}, on @user_script:1\.$/);
    expect(await mock.hget('h', 'f')).toBe('v');
  });

  it('WAIT is unsupported: durable writes raise a typed error rather than pretending', async () => {
    const { mock, store } = fresh();
    expect(() => mock.wait(1, 10)).toThrow(/Unsupported/);
    await expect(store.wait(1, 10)).rejects.toBeInstanceOf(UnsupportedStoreFeatureError);
  });
});
