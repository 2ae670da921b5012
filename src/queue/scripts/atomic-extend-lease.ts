import type { ScriptDef } from '../../redis/script.js';
import { NOW_LUA, STALE_TOKEN_LUA } from './atomic-common.js';

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
};
