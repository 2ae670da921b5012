import type { LuaValue, ScriptDef } from '../script.js';
import { LEASE_LUA, NOW_LUA, PROMOTE_LUA, lease, promote, scriptNow } from './atomic-common.js';

/**
 * Atomic pop from one shard: promote every due id to READY, then lease up to `count` ids in
 * (priority, push order). Each leased id comes back as id, payload, token, deadline.
 * KEYS: msg, meta, leases, counters, queue, ready, unack. ARGV: now, server_time, count, unack ms.
 */
const lua = `${NOW_LUA}
${PROMOTE_LUA}
${LEASE_LUA}
local msg, meta, leases, counters, queue, ready, unack = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6], KEYS[7]
local count = tonumber(ARGV[3])
local deadline = now + tonumber(ARGV[4])
promote(queue, ready, meta, now)
local out = {}
local got = 0
while got < count do
  local ids = redis.call('zrange', ready, 0, count - got - 1)
  if #ids == 0 then break end
  for i = 1, #ids do
    redis.call('zrem', ready, ids[i])
    local leased = lease(ids[i], msg, meta, leases, counters, unack, deadline)
    if leased then
      got = got + 1
      for j = 1, 4 do out[#out + 1] = leased[j] end
    end
  end
end
return out`;

export const atomicPop: ScriptDef = {
  name: 'atomicPop',
  keyCount: 7,
  lua,
  run(redis, keys, argv) {
    const now = scriptNow(redis, argv);
    const [msg, meta, leases, counters, queue, ready, unack] = keys as [string, string, string, string, string, string, string];
    const count = Number(argv[2]);
    const deadline = now + Number(argv[3]);
    promote(redis, queue, ready, meta, now);
    const out: LuaValue[] = [];
    let got = 0;
    while (got < count) {
      const ids = redis.call('zrange', ready, '0', String(count - got - 1)) as string[];
      if (ids.length === 0) break;
      for (const id of ids) {
        redis.call('zrem', ready, id);
        const leased = lease(redis, id, { msg, meta, leases, counters, unack }, deadline);
        if (leased) {
          got++;
          out.push(...leased);
        }
      }
    }
    return out;
  },
};
