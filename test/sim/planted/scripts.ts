import type { LuaRedis, LuaValue } from '../../../src/redis/script.js';
import type * as Common from '../../../src/queue/scripts/atomic-common.js';

/**
 * A planted endless loop, in the Lua and its twin alike: pop no longer takes the ids it leases out of
 * READY, so an id whose message is gone (acked, removed) stays in READY and every later pop loops on
 * it. A module for vi.mock('…/atomic-common.js').
 */
export function plantEndlessPop(real: typeof Common): typeof Common {
  const line = "      redis.call('zrem', ready, ids[i])\n";
  if (!real.POP_LUA.includes(line)) throw new Error('the pop line to plant on moved');
  const POP_LUA = real.POP_LUA.replace(line, '');
  function pop(redis: LuaRedis, k: Common.PopKeys, token: string, dueBy: number, count: number, deadline: number, out: LuaValue[]): LuaValue[] {
    real.promote(redis, k.queue, k.ready, k.meta, dueBy);
    let got = 0;
    while (got < count) {
      const ids = redis.call('zrange', k.ready, '0', String(count - got - 1)) as string[];
      if (ids.length === 0) break;
      for (const id of ids) {
        const leased = real.lease(redis, id, k, token, deadline);
        if (leased) {
          got++;
          out.push(...leased);
        }
      }
    }
    return out;
  }
  // The texts are typed as their literal values: a planted copy is another string, by design.
  return { ...real, POP_LUA, pop, ACK_THEN_POP_LUA: real.ACK_THEN_POP_LUA.replace(line, '') } as unknown as typeof Common;
}

/** A planted Lua-only regression: the Lua of ack leaves the id in its UNACK set; the twin is right. */
export function plantLuaOnlyAck(real: typeof Common): typeof Common {
  const line = "    if redis.call('zrem', unacks[i], id) > 0 then";
  if (!real.ACK_LUA.includes(line)) throw new Error('the ack line to plant on moved');
  const planted = "    if redis.call('zscore', unacks[i], id) then";
  return { ...real, ACK_LUA: real.ACK_LUA.replace(line, planted), ACK_THEN_POP_LUA: real.ACK_THEN_POP_LUA.replace(line, planted) } as unknown as typeof Common;
}
