import type { ScriptDef } from '../../redis/script.js';
import { luaTruthy } from '../../redis/script.js';
import { NOW_LUA, scriptNow } from './atomic-common.js';

/**
 * Atomic re-queue of expired leases on one shard. The expiry is decided here, inside the script,
 * against the script's own now, so a lease extended or acked a moment ago is never taken back.
 * A re-queued id returns to READY with its original rank (priority and push order kept) and its
 * lease token is revoked; an id whose payload is gone is dropped. Returns how many were re-queued.
 * KEYS: msg, meta, leases, ready, unack. ARGV: now, server_time, batch size.
 */
const lua = `${NOW_LUA}
local msg, meta, leases, ready, unack = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5]
local expired = redis.call('zrangebyscore', unack, '-inf', now, 'LIMIT', 0, tonumber(ARGV[3]))
local moved = 0
for i = 1, #expired do
  local id = expired[i]
  redis.call('zrem', unack, id)
  redis.call('hdel', leases, id)
  local rank = redis.call('hget', meta, id)
  if rank and redis.call('hexists', msg, id) == 1 then
    redis.call('zadd', ready, rank, id)
    moved = moved + 1
  else
    redis.call('hdel', meta, id)
    redis.call('hdel', msg, id)
  end
end
return moved`;

export const atomicRequeueExpired: ScriptDef = {
  name: 'atomicRequeueExpired',
  keyCount: 5,
  writes: true,
  lua,
  twinErrorsBare: true,
  twin(redis, keys, argv) {
    const now = scriptNow(redis, argv);
    const msg = keys[0]!;
    const meta = keys[1]!;
    const leases = keys[2]!;
    const ready = keys[3]!;
    const unack = keys[4]!;
    const expired = redis.call('zrangebyscore', unack, '-inf', String(now), 'LIMIT', '0', argv[2]!) as string[];
    let moved = 0;
    for (const id of expired) {
      redis.call('zrem', unack, id);
      redis.call('hdel', leases, id);
      const rank = redis.call('hget', meta, id);
      if (luaTruthy(rank) && redis.call('hexists', msg, id) === 1) {
        redis.call('zadd', ready, rank as string, id);
        moved++;
      } else {
        redis.call('hdel', meta, id);
        redis.call('hdel', msg, id);
      }
    }
    return moved;
  },
};
