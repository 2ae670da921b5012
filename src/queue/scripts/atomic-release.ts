import { luaTruthy, type ScriptDef } from '../../redis/script.js';
import { STALE_TOKEN_LUA, staleToken } from './atomic-common.js';

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
  twin(redis, keys, argv) {
    const msg = keys[0]!;
    const meta = keys[1]!;
    const leases = keys[2]!;
    const id = argv[0]!;
    if (staleToken(redis, leases, id, argv[1]!)) return 0;
    for (let i = 3; i < keys.length; i += 2) {
      if (redis.call('zrem', keys[i + 1]!, id) === 1) {
        redis.call('hdel', leases, id);
        const rank = redis.call('hget', meta, id);
        if (luaTruthy(rank) && redis.call('hexists', msg, id) === 1) {
          redis.call('zadd', keys[i]!, rank as string, id);
          return 1;
        }
        redis.call('hdel', meta, id);
        redis.call('hdel', msg, id);
        return 0;
      }
    }
    return 0;
  },
};
