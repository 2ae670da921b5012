import { luaTruthy, type ScriptDef } from '../../redis/script.js';
import { formatRedisDouble } from '../../redis/number-format.js';
import { NOW_LUA, scriptNow } from './atomic-common.js';

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
  twin(redis, keys, argv) {
    const now = scriptNow(redis, argv);
    const id = argv[2]!;
    for (let i = 0; i < keys.length; i += 2) {
      const queue = keys[i]!;
      if (luaTruthy(redis.call('zscore', queue, id)) || redis.call('zrem', keys[i + 1]!, id) === 1) {
        redis.call('zadd', queue, formatRedisDouble(now + Number(argv[3])), id);
        return 1;
      }
    }
    return 0;
  },
};
