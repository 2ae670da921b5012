import type { ScriptDef } from '../../redis/script.js';
import { NOW_LUA } from './atomic-common.js';

/**
 * Atomic setTimeout: a queued (delayed or due) id becomes due at now + timeout, in the shard where
 * it is, keeping its rank. A leased id is left alone (as Dyno does). Returns 1 when rescheduled.
 * KEYS: then queue, ready per shard. ARGV: now, server_time, id, timeout ms.
 */
const lua = `${NOW_LUA}
local id = ARGV[3]
for i = 1, #KEYS, 2 do
  local queue, ready = KEYS[i], KEYS[i + 1]
  if redis.call('zscore', queue, id) or redis.call('zrem', ready, id) == 1 then
    redis.call('zadd', queue, now + tonumber(ARGV[4]), id)
    return 1
  end
end
return 0`;

export const atomicReschedule: ScriptDef = {
  name: 'atomicReschedule',
  keyCount: 'variable',
  writes: true,
  lua,
};
