import type { ScriptDef } from '../../redis/script.js';

/**
 * Dyno-queues' `atomicProcessUnacks`: the same steps as `processUnacks` in one script. The seeds do
 * not print its Lua, so this follows processUnacks step for step: expired un-ack entries go back to
 * the queue shard with their un-ack score (their priority fraction is lost, as in the original), and
 * entries whose payload is gone are dropped. Returns how many were moved back.
 * KEYS: message hash, queue shard, un-ack shard. ARGV: now, batch size.
 */
const lua = `local hkey=KEYS[1]
local queue_shard=KEYS[2]
local unack_shard=KEYS[3]
local now=ARGV[1]
local batch=ARGV[2]
local unacks=redis.call('zrangebyscore', unack_shard, 0, now, 'WITHSCORES', 'LIMIT', 0, batch)
local moved=0
for i=1,#unacks,2 do
  local member=unacks[i]
  local score=unacks[i+1]
  local payload=redis.call('hget', hkey, member)
  if (payload) then
    redis.call('zadd', queue_shard, score, member)
    redis.call('zrem', unack_shard, member)
    moved=moved+1
  else
    redis.call('zrem', unack_shard, member)
  end
end
return moved`;

export const legacyProcessUnacks: ScriptDef = {
  name: 'legacyProcessUnacks',
  keyCount: 3,
  writes: true,
  lua,
};
