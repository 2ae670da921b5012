import type { ScriptDef } from '../script.js';
import { STALE_TOKEN_LUA, staleToken } from './atomic-common.js';

/**
 * Atomic ack: removes the id from whichever shard's UNACK holds it and deletes its payload, rank
 * and lease. Given a token, acts only while that token is the id's current lease (a consumer whose
 * lease was re-queued, or re-leased to another consumer, is refused). Returns 1 when acked.
 * KEYS: msg, meta, leases, then one UNACK per shard. ARGV: id, token ('' for none).
 */
const lua = `${STALE_TOKEN_LUA}
local msg, meta, leases = KEYS[1], KEYS[2], KEYS[3]
local id, token = ARGV[1], ARGV[2]
if stale_token(leases, id, token) then return 0 end
for i = 4, #KEYS do
  if redis.call('zrem', KEYS[i], id) > 0 then
    redis.call('hdel', msg, id)
    redis.call('hdel', meta, id)
    redis.call('hdel', leases, id)
    return 1
  end
end
return 0`;

export const atomicAck: ScriptDef = {
  name: 'atomicAck',
  keyCount: 'variable',
  lua,
  run(redis, keys, argv) {
    const [msg, meta, leases] = keys as [string, string, string];
    const id = argv[0]!;
    if (staleToken(redis, leases, id, argv[1]!)) return 0;
    for (const unack of keys.slice(3)) {
      if ((redis.call('zrem', unack, id) as number) > 0) {
        redis.call('hdel', msg, id);
        redis.call('hdel', meta, id);
        redis.call('hdel', leases, id);
        return 1;
      }
    }
    return 0;
  },
};
