import type { ScriptDef } from '../../redis/script.js';

/**
 * Dyno-queues v1 `findStaleMsgsScript`, logic as written: an id is stale when it is not both in the
 * hash and in the queue shard, and not in the un-ack shard either.
 * KEYS: message hash, queue shard, un-ack shard. ARGV: count, ids...
 */
const lua = `local hkey=KEYS[1]
local queue_shard=KEYS[2]
local unack_shard=KEYS[3]
local num_msgs=ARGV[1]
local stale_msgs={}
local num_stale_idx = 1
for i=0,num_msgs-1 do
  local msg_id=ARGV[2+i]
  local exists_hash = redis.call('hget', hkey, msg_id)
  local exists_queue = redis.call('zscore', queue_shard, msg_id)
  local exists_unack = redis.call('zscore', unack_shard, msg_id)
  if (exists_hash and exists_queue) then
  elseif (not (exists_unack)) then
    stale_msgs[num_stale_idx] = msg_id
    num_stale_idx = num_stale_idx + 1
  end
end
return stale_msgs`;

export const legacyFindStale: ScriptDef = {
  name: 'legacyFindStale',
  keyCount: 3,
  writes: false,
  lua,
};
