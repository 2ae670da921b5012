import { luaTruthy, type LuaValue, type ScriptDef } from '../../redis/script.js';

/**
 * One page of the message hash: a single HSCAN step (COUNT ARGV[2], a hint Redis honours on a
 * hash-table encoded hash) from cursor ARGV[1]; with more keys, only ids present in one of those
 * sorted sets are returned (the `localShardOnly` predicates: the local shard's sets). The client
 * walks the pages and does any matching itself, so one call's work is bounded by the page size
 * whatever the queue holds or the caller asks (the predicate scripts of Dyno-queues matched inside
 * Redis and could block it for minutes).
 * KEYS: message hash [, sorted sets...]. ARGV: cursor, count. Returns {next cursor, id, json, ...}.
 */
const lua = `local ret = redis.call('hscan', KEYS[1], ARGV[1], 'COUNT', tonumber(ARGV[2]))
local out = {ret[1]}
local entries = ret[2]
for i = 1, #entries, 2 do
  local keep = #KEYS == 1
  for k = 2, #KEYS do
    if not keep and redis.call('zscore', KEYS[k], entries[i]) then keep = true end
  end
  if keep then
    out[#out + 1] = entries[i]
    out[#out + 1] = entries[i + 1]
  end
end
return out`;

export const scanMessages: ScriptDef = {
  name: 'scanMessages',
  keyCount: 'variable',
  writes: false,
  lua,
  twin(redis, keys, argv) {
    const [cursor, entries] = redis.call('hscan', keys[0]!, argv[0]!, 'COUNT', String(Number(argv[1]))) as [string, string[]];
    const out: LuaValue[] = [cursor];
    for (let i = 0; i < entries.length; i += 2) {
      let keep = keys.length === 1;
      for (let k = 1; k < keys.length; k++) {
        if (!keep && luaTruthy(redis.call('zscore', keys[k]!, entries[i]!))) keep = true;
      }
      if (keep) out.push(entries[i]!, entries[i + 1]!);
    }
    return out;
  },
};
