import { luaTruthy, type LuaValue, type ScriptDef } from '../../redis/script.js';

/**
 * Dyno-queues v1 `atomicBulkPopScriptLocalOnly`, logic as written (the queue and un-ack shard names
 * come in KEYS here rather than ARGV so that Redis knows every key the script touches).
 * Two original quirks are kept on purpose, the harness studies them:
 * - `exists <= peek_until` compares two *strings* in Lua (ZSCORE's reply and the ARGV), so it is a
 *   lexicographic comparison, right only while both have the same number of integer digits;
 * - `if (zadd_ret)` is always true (0 is truthy in Lua), so an id already in un-ack is popped again.
 * KEYS: message hash, queue shard, un-ack shard. ARGV: count, peek_until, unack_score, ids...
 */
const lua = `local hkey=KEYS[1]
local queue_shard_name=KEYS[2]
local unack_shard_name=KEYS[3]
local num_msgs=ARGV[1]
local peek_until=ARGV[2]
local unack_score=ARGV[3]
local msg_start_idx = 4
local idx = 1
local return_vals={}
for i=0,num_msgs-1 do
  local message_id=ARGV[msg_start_idx + i]
  local exists = redis.call('zscore', queue_shard_name, message_id)
  if (exists) then
    if (exists <=peek_until) then
      local value = redis.call('hget', hkey, message_id)
      if (value) then
        local zadd_ret = redis.call('zadd', unack_shard_name, 'NX', unack_score, message_id)
        if (zadd_ret) then
          redis.call('zrem', queue_shard_name, message_id)
          return_vals[idx]=value
          idx=idx+1
        end
      end
    end
  else
    return {}
  end
end
return return_vals`;

export const legacyBulkPopLocal: ScriptDef = {
  name: 'legacyBulkPopLocal',
  keyCount: 3,
  writes: true,
  lua,
  twin(redis, keys, argv) {
    const [hkey, queueShard, unackShard] = [keys[0]!, keys[1]!, keys[2]!];
    const count = Number(argv[0]);
    const peekUntil = argv[1]!;
    const unackScore = argv[2]!;
    const out: LuaValue[] = [];
    for (let i = 0; i <= count - 1; i++) {
      const id = argv[3 + i]!;
      const exists = redis.call('zscore', queueShard, id);
      if (!luaTruthy(exists)) return [];
      // Lua compares the two strings, as the original does: lexicographically.
      if ((exists as string) <= peekUntil) {
        const value = redis.call('hget', hkey, id);
        if (luaTruthy(value)) {
          // The original's `if (zadd_ret)` is always true (0 is truthy in Lua): an id already in un-ack is popped again.
          redis.call('zadd', unackShard, 'NX', unackScore, id);
          redis.call('zrem', queueShard, id);
          out.push(value);
        }
      }
    }
    return out;
  },
};
