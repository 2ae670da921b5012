import fc from 'fast-check';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InvalidArgumentError, PatternTooComplexError } from '../../src/queue/errors.js';
import { compileLuaPattern, luaPatternMatches, patternStepBudget } from '../../src/queue/lua-pattern.js';
import { redisRequired, redisServerBinary, startRedisServer, type RedisServer } from '../support/redis-server.js';

// The client-side Lua pattern matcher must answer exactly as Redis's string.match does, and the
// patterns it accepts must be exactly ones Redis can run without a pattern error.

const available = redisServerBinary() !== null;
if (!available && redisRequired) throw new Error('REQUIRE_REDIS=1 but redis-server is not installed');

/** string.match in Redis: 1 match, 0 none, 'ERR <message>' when Lua raised a pattern error. */
const MATCH = `local ok, r = pcall(string.match, ARGV[1], ARGV[2])
if not ok then return 'ERR ' .. tostring(r) end
if r ~= nil then return 1 end
return 0`;

const tokens = fc.constantFrom(
  'a', 'b', 'ab', '.', '%a', '%d', '%s', '%W', '%p', '%x', '%z', '%%', '%.', '[ab]', '[^a]', '[a-c]', '[%d_]', '[]]', '[^]a]',
  '(', ')', '()', '%1', '%2', '%bab', '%b()', '%f[%w]', '%f[^a]', '^', '$', '*', '+', '-', '?', 'é', '\u00ff',
);
const pattern = fc.array(tokens, { minLength: 1, maxLength: 8 }).map((t) => t.join(''));
const subject = fc.array(fc.constantFrom('a', 'b', 'c', '1', ' ', '(', ')', '.', '_', 'é', '\n', '\u0000', 'ab'), { maxLength: 14 }).map((t) => t.join(''));

describe.runIf(available)('Lua patterns in the client, against redis-server', () => {
  let server: RedisServer;
  let client: Redis;
  beforeAll(async () => {
    server = await startRedisServer();
    client = new Redis({ host: '127.0.0.1', port: server.port });
  }, 20_000);
  afterAll(async () => {
    client.disconnect();
    await server.stop();
  });

  it('match / no match / refused agrees with string.match on generated patterns and subjects', async () => {
    let compared = 0;
    let refused = 0;
    await fc.assert(
      fc.asyncProperty(pattern, fc.array(subject, { minLength: 1, maxLength: 6 }), async (p, subjects) => {
        let compiled;
        try {
          compiled = compileLuaPattern(p);
        } catch (err) {
          expect(err).toBeInstanceOf(InvalidArgumentError);
          refused++;
          return;
        }
        for (const s of subjects) {
          const redis = await client.eval(MATCH, 0, s, p);
          // an accepted pattern never makes Lua raise a pattern error
          expect(String(redis), `pattern ${JSON.stringify(p)} on ${JSON.stringify(s)}`).not.toMatch(/^ERR/);
          expect(luaPatternMatches(compiled, s) ? 1 : 0, `pattern ${JSON.stringify(p)} on ${JSON.stringify(s)}`).toBe(redis);
          compared++;
        }
      }),
      { numRuns: 600, seed: 15 },
    );
    expect(compared).toBeGreaterThan(500);
    expect(refused).toBeGreaterThan(20);
  }, 120_000);

  it('every malformed pattern Lua rejects on the spot is refused before matching', async () => {
    for (const p of ['%', 'a%', '[a', '[^', '[%', '(a', 'a)', '%b(', '%b', '%fx', '%f', '%1', '(a)%2', '%0', '('.repeat(33) + ')'.repeat(33)]) {
      const redis = await client.eval(MATCH, 0, 'a(a)b', p);
      expect(String(redis), p).toMatch(/^ERR/);
      expect(() => compileLuaPattern(p), p).toThrow(InvalidArgumentError);
    }
  });
});

describe('the step budget', () => {
  it('a backtracking pattern on a large payload fails fast with PatternTooComplexError', () => {
    const payload = 'a'.repeat(10_000);
    const started = performance.now();
    let err: unknown;
    try {
      luaPatternMatches(compileLuaPattern('.-.-.-b'), payload, 'm1');
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(PatternTooComplexError);
    expect((err as PatternTooComplexError).budget).toBe(patternStepBudget(10_000));
    expect((err as PatternTooComplexError).messageId).toBe('m1');
    expect(performance.now() - started).toBeLessThan(5_000);
  });

  it('linear patterns on a 512 KiB payload stay within the budget', () => {
    const payload = `${'x'.repeat(512 * 1024 - 20)}"orderId":"12345"`;
    for (const p of ['"orderId":"12345"', 'orderId":"%d+"', '%b""$', 'zzz', '^x+"']) {
      expect(() => luaPatternMatches(compileLuaPattern(p), payload)).not.toThrow();
    }
    expect(luaPatternMatches(compileLuaPattern('orderId":"(%d+)"'), payload)).toBe(true);
  });
});
