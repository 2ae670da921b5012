import { luaTruthy, type ScriptDef } from '../../redis/script.js';

/**
 * Atomic remove: takes the id out of every shard's QUEUE, READY and UNACK and deletes its payload,
 * rank and lease. Returns 1 when the id was queued or leased anywhere. Given a token (ARGV[2]), a
 * leased id is removed only under that lease, and a re-queued one not at all (the token is stale);
 * without one, ARGV[3] '1' (requireLeaseToken) refuses to remove a leased id.
 * KEYS: msg, meta, leases, then queue, ready, unack per shard. ARGV: id, [token, token required].
 */
const lua = `local id = ARGV[1]
local token = ARGV[2] or ''
if token ~= '' or ARGV[3] == '1' then
  local lease = redis.call('hget', KEYS[3], id)
  if token ~= '' and lease ~= token then return 0 end
  if token == '' and lease then return 0 end
end
local removed = 0
for i = 4, #KEYS do removed = removed + redis.call('zrem', KEYS[i], id) end
redis.call('hdel', KEYS[1], id)
redis.call('hdel', KEYS[2], id)
redis.call('hdel', KEYS[3], id)
if removed > 0 then return 1 end
return 0`;

export const atomicRemove: ScriptDef = {
  name: 'atomicRemove',
  keyCount: 'variable',
  writes: true,
  lua,
  twin(redis, keys, argv) {
    const id = argv[0]!;
    const token = argv[1] ?? '';
    if (token !== '' || argv[2] === '1') {
      const lease = redis.call('hget', keys[2]!, id);
      if (token !== '' && lease !== token) return 0;
      if (token === '' && luaTruthy(lease)) return 0;
    }
    let removed = 0;
    for (let i = 3; i < keys.length; i++) removed += redis.call('zrem', keys[i]!, id) as number;
    redis.call('hdel', keys[0]!, id);
    redis.call('hdel', keys[1]!, id);
    redis.call('hdel', keys[2]!, id);
    return removed > 0 ? 1 : 0;
  },
};
