import type { ScriptDef } from '../../redis/script.js';
import { formatRedisDouble } from '../../redis/number-format.js';
import { LEASE_LUA, NOW_LUA, lease, scriptNow } from './atomic-common.js';

/**
 * Atomic popWithMsgId on one shard: leases the id if it is in that shard's QUEUE or READY, due or
 * not (Dyno's popWithMsgId ignores the schedule too). Returns id, payload, token, deadline or {}.
 * KEYS: msg, meta, leases, counters, queue, ready, unack. ARGV: now, server_time, id, unack ms, lease token (client-generated).
 */
const lua = `${NOW_LUA}
${LEASE_LUA}
local msg, meta, leases, _, queue, ready, unack = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6], KEYS[7]
local id = ARGV[3]
local removed = redis.call('zrem', queue, id) + redis.call('zrem', ready, id)
if removed == 0 then return {} end
return lease(id, msg, meta, leases, ARGV[5], unack, now + tonumber(ARGV[4])) or {}`;

export const atomicPopById: ScriptDef = {
  name: 'atomicPopById',
  keyCount: 7,
  writes: true,
  lua,
  twin(redis, keys, argv) {
    const now = scriptNow(redis, argv);
    const id = argv[2]!;
    const removed = (redis.call('zrem', keys[4]!, id) as number) + (redis.call('zrem', keys[5]!, id) as number);
    if (removed === 0) return [];
    return lease(redis, id, { msg: keys[0]!, meta: keys[1]!, leases: keys[2]!, unack: keys[6]! }, argv[4]!, now + Number(argv[3]), formatRedisDouble) ?? [];
  },
};
