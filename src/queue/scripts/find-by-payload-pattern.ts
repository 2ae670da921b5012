import type { ScriptDef } from '../../redis/script.js';
import { luaTruthy } from '../../redis/script.js';
import { luaMatches } from './lua-pattern.js';
import { payloadOfStoredJson } from '../stored-message.js';

/**
 * Dyno-queues' predicate scripts (containsPredicate / getMsgWithPredicate): walk the message hash
 * with HSCAN and return the first id whose payload matches a Lua pattern; with more keys, only ids
 * present in one of those sorted sets count (the `localShardOnly` variant: the local shard's sets).
 * Dyno decodes the stored JSON with cjson. ioredis-mock's Lua has no cjson, so there the payload is
 * sliced out of the JSON text (it is always serialised last) and matched still JSON-escaped:
 * payloads with quotes, backslashes or control characters can match differently on ioredis-mock.
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
    local payload
    if cjson then
      payload = cjson.decode(entries[i+1])['payload']
    else
      payload = string.match(entries[i+1], '"payload":"(.*)"}$')
    end
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
  twin(redis, keys, argv) {
    const hkey = keys[0]!;
    const shardSets = keys.slice(1);
    const inShard = (id: string) =>
      shardSets.length === 0 || shardSets.some((set) => luaTruthy(redis.call('zscore', set, id)));
    const pattern = argv[0]!;
    let cursor = '0';
    do {
      const [next, entries] = redis.call('hscan', hkey, cursor) as [string, string[]];
      for (let i = 0; i < entries.length; i += 2) {
        const id = entries[i]!;
        const payload = payloadOfStoredJson(entries[i + 1]!);
        if (payload !== null && luaMatches(payload, pattern)) {
          if (inShard(id)) return id;
        }
      }
      cursor = next;
    } while (cursor !== '0');
    return false;
  },
};
