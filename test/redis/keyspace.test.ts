import { describe, expect, it } from 'vitest';
import { Keyspace } from '../../src/redis/keyspace.js';
import { RedisError } from '../../src/redis/redis-error.js';
import { formatRedisDouble } from '../../src/redis/number-format.js';

describe('simulated keyspace (Redis 7 semantics)', () => {
  it('orders a sorted set by score, then member bytes', () => {
    const ks = new Keyspace();
    ks.exec('zadd', ['z', '2', 'b', '1', 'z', '2', 'a', '1', 'y']);
    expect(ks.exec('zrange', ['z', '0', '-1'])).toEqual(['y', 'z', 'a', 'b']);
    expect(ks.exec('zrank', ['z', 'a'])).toBe(2);
    expect(ks.exec('zrank', ['z', 'nope'])).toBeNull();
  });

  it('follows ZADD flag rules and return values', () => {
    const ks = new Keyspace();
    expect(ks.exec('zadd', ['z', '1', 'a'])).toBe(1);
    expect(ks.exec('zadd', ['z', '1', 'a'])).toBe(0);
    expect(ks.exec('zadd', ['z', 'CH', '2', 'a'])).toBe(1);
    expect(ks.exec('zadd', ['z', 'NX', '5', 'a'])).toBe(0);
    expect(ks.exec('zscore', ['z', 'a'])).toBe('2');
    expect(ks.exec('zadd', ['z', 'XX', '7', 'b'])).toBe(0);
    expect(ks.exec('zscore', ['z', 'b'])).toBeNull();
    expect(ks.exec('zadd', ['none', 'XX', '7', 'b'])).toBe(0);
    expect(ks.keys()).not.toContain('none');
    expect(() => ks.exec('zadd', ['z', 'NX', 'XX', '1', 'a'])).toThrow(/not compatible/);
    expect(() => ks.exec('zadd', ['z', 'abc', 'a'])).toThrow(/not a valid float/);
    expect(() => ks.exec('zadd', ['z', 'nan', 'a'])).toThrow(RedisError);
  });

  it('applies a ZADD with a bad score nowhere, and refuses extra ZRANGE arguments', () => {
    const ks = new Keyspace();
    ks.exec('zadd', ['z', '1', 'a']);
    expect(() => ks.exec('zadd', ['z', '5', 'a', '2', 'b', 'oops', 'c'])).toThrow(/not a valid float/);
    expect(() => ks.exec('zadd', ['z', 'CH', '5', 'a', '2'])).toThrow(/syntax error/);
    expect(ks.exec('zrange', ['z', '0', '-1', 'WITHSCORES'])).toEqual(['a', '1']);
    expect(ks.exec('zadd', ['z', 'ch', '5', 'a', '2', 'b'])).toBe(2);
    expect(ks.exec('zrange', ['z', '0', '-1', 'withscores'])).toEqual(['b', '2', 'a', '5']);
    expect(() => ks.exec('zrange', ['z', '0', '-1', 'WITHSCORES', 'extra'])).toThrow(/syntax error/);
    expect(() => ks.exec('zrange', ['z', '0', '-1', 'extra'])).toThrow(/syntax error/);
    expect(() => ks.exec('zrangebyscore', ['z', '0', '9', 'LIMIT', '0'])).toThrow(/syntax error/);
    expect(ks.exec('zrem', ['z', 'a', 'nope', 'b'])).toBe(2);
    expect(ks.keys()).toEqual([]);
  });

  it('parses fractional, infinite and exclusive bounds (where ioredis-mock parses integers)', () => {
    const ks = new Keyspace();
    ks.exec('zadd', ['z', '1700000000123.05', 'a', '1.5', 'b', '3', 'c', '+inf', 'd', '-inf', 'e']);
    expect(ks.exec('zrangebyscore', ['z', '0', '1700000000123.5'])).toEqual(['b', 'c', 'a']);
    expect(ks.exec('zrangebyscore', ['z', '(1.5', '3'])).toEqual(['c']);
    expect(ks.exec('zrangebyscore', ['z', '-inf', '(3'])).toEqual(['e', 'b']);
    expect(ks.exec('zrangebyscore', ['z', '-inf', '+inf', 'LIMIT', '1', '2'])).toEqual(['b', 'c']);
    expect(ks.exec('zrangebyscore', ['z', '-inf', '+inf', 'LIMIT', '3', '-1'])).toEqual(['a', 'd']);
    expect(ks.exec('zrangebyscore', ['z', '1', '2', 'WITHSCORES'])).toEqual(['b', '1.5']);
    expect(() => ks.exec('zrangebyscore', ['z', 'x', '2'])).toThrow(/min or max is not a float/);
  });

  it('prints scores as Redis 7.0 does ("%.17g", integers plainly)', () => {
    expect(formatRedisDouble(1.1)).toBe('1.1000000000000001');
    expect(formatRedisDouble(0.1 + 0.2)).toBe('0.30000000000000004');
    expect(formatRedisDouble(1e300)).toBe('1.0000000000000001e+300');
    expect(formatRedisDouble(1700000000123.05)).toBe('1700000000123.05');
    expect(formatRedisDouble(7036874417766400)).toBe('7036874417766400');
    expect(formatRedisDouble(-0)).toBe('0');
    expect(formatRedisDouble(Infinity)).toBe('inf');
  });

  it('keeps hashes, counters and types apart', () => {
    const ks = new Keyspace(() => 1_700_000_000_123);
    expect(ks.exec('hset', ['h', 'f', 'v'])).toBe(1);
    expect(ks.exec('hset', ['h', 'f', 'w'])).toBe(0);
    expect(ks.exec('hget', ['h', 'f'])).toBe('w');
    expect(ks.exec('hget', ['h', 'g'])).toBeNull();
    expect(ks.exec('hincrby', ['h', 'n', '5'])).toBe(5);
    expect(() => ks.exec('hincrby', ['h', 'f', '1'])).toThrow(/not an integer/);
    expect(ks.exec('hgetall', ['h'])).toEqual(['f', 'w', 'n', '5']);
    expect(() => ks.exec('zadd', ['h', '1', 'a'])).toThrow(/WRONGTYPE/);
    expect(ks.exec('hdel', ['h', 'f', 'n'])).toBe(2);
    expect(ks.exec('hlen', ['h'])).toBe(0);
    expect(ks.keyCount).toBe(0);
    expect(ks.exec('time', [])).toEqual(['1700000000', '123000']);
  });

  it('handles a large sorted set in order', () => {
    const ks = new Keyspace();
    const n = 5_000;
    for (let i = n - 1; i >= 0; i--) ks.exec('zadd', ['z', String(i % 97), `m${i}`]);
    const all = ks.exec('zrangebyscore', ['z', '-inf', '+inf', 'WITHSCORES']) as string[];
    expect(all.length).toBe(2 * n);
    for (let i = 2; i < all.length; i += 2) {
      const prev = [Number(all[i - 1]), all[i - 2]!] as const;
      const cur = [Number(all[i + 1]), all[i]!] as const;
      expect(prev[0] < cur[0] || (prev[0] === cur[0] && prev[1] < cur[1])).toBe(true);
    }
    expect(ks.exec('zrank', ['z', 'm96'])).toBe((ks.exec('zrange', ['z', '0', '-1']) as string[]).indexOf('m96'));
    for (let i = 0; i < n; i += 2) ks.exec('zrem', ['z', `m${i}`]);
    expect(ks.exec('zcard', ['z'])).toBe(n / 2);
  });

  it('runs EVAL, SCRIPT LOAD and EVALSHA in Lua, with KEYS/ARGV and a per-keyspace script cache', () => {
    const ks = new Keyspace();
    const lua = "redis.call('hset', KEYS[1], ARGV[1], ARGV[2]) return {redis.call('hget', KEYS[1], ARGV[1]), #KEYS, #ARGV}";
    expect(ks.exec('eval', [lua, '1', 'h', 'f', 'v'])).toEqual(['v', 1, 2]);
    const sha = ks.exec('script', ['load', lua]) as string;
    expect(sha).toMatch(/^[0-9a-f]{40}$/);
    expect(ks.exec('script', ['exists', sha, 'f'.repeat(40)])).toEqual([1, 0]);
    expect(ks.exec('evalsha', [sha.toUpperCase(), '1', 'h', 'g', 'w'])).toEqual(['w', 1, 2]);
    expect(() => new Keyspace().exec('evalsha', [sha, '0'])).toThrow(/^NOSCRIPT/);
    expect(() => ks.exec('eval', ['return 1', '2', 'k'])).toThrow(/greater than number of args/);
    expect(() => ks.exec('script', ['load', 'return +'])).toThrow(/^ERR Error compiling script/);
    expect(() => ks.exec('eval', ["return redis.call('eval', 'return 1', '0')", '0'])).toThrow(/not allowed from script/);
  });

  it('checks command arity as Redis does', () => {
    const ks = new Keyspace();
    expect(() => ks.exec('hget', ['h'])).toThrow("ERR wrong number of arguments for 'hget' command");
    expect(() => ks.exec('zadd', ['z', '1'])).toThrow(/wrong number of arguments/);
    expect(ks.exec('del', ['a', 'b', 'c'])).toBe(0);
  });

  it('takes command names in any case, and no name from the object prototype', () => {
    const ks = new Keyspace();
    expect(ks.exec('ZADD', ['z', '1', 'a'])).toBe(1);
    expect(ks.exec('ZScore', ['z', 'a'])).toBe('1');
    expect(() => ks.exec('HGET', ['h'])).toThrow("ERR wrong number of arguments for 'hget' command");
    expect(() => ks.exec('toString', [])).toThrow("ERR unknown command 'toString'");
    expect(() => ks.exec('constructor', ['x'])).toThrow("ERR unknown command 'constructor'");
  });
});
