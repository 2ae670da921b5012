import type { ScriptDef } from '../../redis/script.js';
import { NOW_LUA, PROMOTE_LUA } from './atomic-common.js';

/**
 * Atomic peek on one shard: promotes due ids (invisible to users) and returns the next `count`
 * ids with their payloads, in the order a pop would take them. Nothing is leased.
 * KEYS: msg, meta, queue, ready. ARGV: now, server_time, count, settle ms.
 */
const lua = `${NOW_LUA}
${PROMOTE_LUA}
local msg, meta, queue, ready = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
promote(queue, ready, meta, now - tonumber(ARGV[4]))
local out = {}
local ids = redis.call('zrange', ready, 0, tonumber(ARGV[3]) - 1)
for i = 1, #ids do
  local payload = redis.call('hget', msg, ids[i])
  if payload then
    out[#out + 1] = ids[i]
    out[#out + 1] = payload
  end
end
return out`;

export const atomicPeek: ScriptDef = {
  name: 'atomicPeek',
  keyCount: 4,
  writes: true,
  lua,
};
