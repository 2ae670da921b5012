import type { ScriptDef } from '../../redis/script.js';
import { STALE_TOKEN_LUA } from './atomic-common.js';

/**
 * Atomic release: hands a leased id back, visible again now (RSMQ's visibility 0, BullMQ's
 * moveToDelayed with no delay). The id leaves whichever shard's UNACK holds it, its lease token is
 * revoked and it returns to that shard's READY with its original rank (priority and push order kept,
 * as the reaper re-queues). Given a token, acts only while that token is the id's current lease.
 * An id whose payload is gone is dropped, as the reaper does. Returns 1 when released.
 * KEYS: msg, meta, leases, then ready, unack per shard. ARGV: id, token ('' for none).
 */
const lua = `${STALE_TOKEN_LUA}
local msg, meta, leases = KEYS[1], KEYS[2], KEYS[3]
local id, token = ARGV[1], ARGV[2]
if stale_token(leases, id, token) then return 0 end
for i = 4, #KEYS, 2 do
  if redis.call('zrem', KEYS[i + 1], id) == 1 then
    redis.call('hdel', leases, id)
    local rank = redis.call('hget', meta, id)
    if rank and redis.call('hexists', msg, id) == 1 then
      redis.call('zadd', KEYS[i], rank, id)
      return 1
    end
    redis.call('hdel', meta, id)
    redis.call('hdel', msg, id)
    return 0
  end
end
return 0`;

export const atomicRelease: ScriptDef = {
  name: 'atomicRelease',
  keyCount: 'variable',
  writes: true,
  lua,
};
