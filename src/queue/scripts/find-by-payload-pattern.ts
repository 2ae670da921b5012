import type { ScriptDef } from '../../redis/script.js';

/**
 * Dyno-queues' predicate scripts (containsPredicate / getMsgWithPredicate): walk the message hash
 * with HSCAN and return the first id whose payload matches a Lua pattern; with more keys, only ids
 * present in one of those sorted sets count (the `localShardOnly` variant: the local shard's sets).
 * Dyno decodes the stored JSON with cjson (every store runs Redis's Lua, cjson included).
 * KEYS: message hash [, sorted sets of the local shard...]. ARGV: pattern.
 */
const lua = `local hkey=KEYS[1]
local predicate=ARGV[1]
local function in_shard(id)
  if #KEYS == 1 then return true end
  for k = 2, #KEYS do
    if redis.call('zscore', KEYS[k], id) then return true end
  end
  return false
end
local cursor=0
local begin=false
while (cursor ~= 0 or begin==false) do
  local ret = redis.call('hscan', hkey, cursor)
  local entries = ret[2]
  for i=1,#entries,2 do
    local id = entries[i]
    local payload = cjson.decode(entries[i+1])['payload']
    if (payload and string.match(payload, predicate)) then
      if in_shard(id) then return id end
    end
  end
  cursor=tonumber(ret[1])
  begin=true
end
return false`;

export const findByPayloadPattern: ScriptDef = {
  name: 'findByPayloadPattern',
  keyCount: 'variable',
  writes: false,
  lua,
};
