import type { ScriptDef } from '../../redis/script.js';
import { formatRedisDouble } from '../../redis/number-format.js';
import { NOW_LUA, STALE_TOKEN_LUA, scriptNow, staleToken } from './atomic-common.js';

/**
 * Atomic setUnackTimeout: moves the lease deadline of an un-acked id to now + timeout, only while
 * the id is still in UNACK (never re-adds an acked one) and, given a token, only for the lease
 * holder. Returns 1 when extended.
 * KEYS: leases, then one UNACK per shard. ARGV: now, server_time, id, token, timeout ms.
 */
const lua = `${NOW_LUA}
${STALE_TOKEN_LUA}
local leases = KEYS[1]
local id, token = ARGV[3], ARGV[4]
if stale_token(leases, id, token) then return 0 end
for i = 2, #KEYS do
  -- ZREM then ZADD, not ZADD XX: a full Redis refuses a script's first ZADD but not one after a ZREM
  if redis.call('zrem', KEYS[i], id) == 1 then
    redis.call('zadd', KEYS[i], now + tonumber(ARGV[5]), id)
    return 1
  end
end
return 0`;

export const atomicExtendLease: ScriptDef = {
  name: 'atomicExtendLease',
  keyCount: 'variable',
  writes: true,
  lua,
  twin(redis, keys, argv) {
    const now = scriptNow(redis, argv);
    const leases = keys[0]!;
    const id = argv[2]!;
    if (staleToken(redis, leases, id, argv[3]!)) return 0;
    for (let i = 1; i < keys.length; i++) {
      if (redis.call('zrem', keys[i]!, id) === 1) {
        redis.call('zadd', keys[i]!, formatRedisDouble(now + Number(argv[4])), id);
        return 1;
      }
    }
    return 0;
  },
};
