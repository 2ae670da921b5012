import type { Redis } from 'ioredis';
import RedisMock from 'ioredis-mock';
import { describe, expect, it } from 'vitest';
import { UnsupportedStoreFeatureError } from '../../src/store/errors.js';
import { IoredisStore } from '../../src/store/ioredis-store.js';
import { atomicPop, atomicPush } from '../../src/store/scripts/index.js';

/**
 * Each ioredis-mock divergence that would change queue behaviour: first shown on the raw mock (so
 * that a fixed ioredis-mock makes this test say so), then shown handled by the adapter.
 */
describe('ioredis-mock divergences, and how the adapter handles them', () => {
  let port = 20_000;
  const fresh = () => {
    const mock = new RedisMock({ host: 'divergence', port: port++ });
    return { mock, store: new IoredisStore(mock as unknown as Redis) };
  };

  it('fractional score bounds: parsed as integers by the mock, filtered right by the adapter', async () => {
    const { mock, store } = fresh();
    expect(store.flavor).toBe('mock');
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

  it("Lua: the mock cannot build a table by index (these scripts do); the adapter runs the script's JS twin", async () => {
    const { mock, store } = fresh();
    const broken = await mock.eval('local t = {} t[1] = 1 t[2] = 2 return t', 0).catch((e: unknown) => e);
    expect(broken).not.toEqual([1, 2]);
    const keys = ['m', 'meta', 'lease', 'counters', 'q', 'r', 'u'];
    await store.runScript(atomicPush, keys, ['1700000000000', '0', '0', '1', 'x', '0', '0', '{"id":"x","payload":"p"}', '1', 'y', '0', '0', '{"id":"y","payload":"q"}']);
    const popped = await store.runScript(atomicPop, keys, ['1700000000000', '0', '2', '1000']);
    expect(popped).toEqual(['x', '{"id":"x","payload":"p"}', '1', 1700000001000, 'y', '{"id":"y","payload":"q"}', '2', 1700000001000]);
    expect(await mock.hget('lease', 'y')).toBe('2');
  });

  it('WAIT is unsupported: durable writes raise a typed error rather than pretending', async () => {
    const { mock, store } = fresh();
    expect(() => mock.wait(1, 10)).toThrow(/Unsupported/);
    await expect(store.wait(1, 10)).rejects.toBeInstanceOf(UnsupportedStoreFeatureError);
  });
});
