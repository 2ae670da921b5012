import type { ScriptDef } from '../../redis/script.js';

/**
 * One page of the atomic findStaleMessages walk: ids that break the layout's invariants. Page 0 is
 * a step of HSCAN over the message hash (a payload in none of the sorted sets); page k ≥ 1 is a step
 * of ZSCAN over the k-th sorted set (an id queued or leased without a payload). Each id is checked
 * inside this one script, so an id it names was stale at that moment; the client walks every page
 * (one bounded call each) until the cursors come back to 0. Read-only.
 * KEYS: msg, then queue, ready, unack per shard. ARGV: which (0 = the hash, k = KEYS[k + 1]),
 * cursor, count. Returns {next cursor, stale id...}.
 */
const lua = `local which, cursor, count = tonumber(ARGV[1]), ARGV[2], tonumber(ARGV[3])
local out = {}
if which == 0 then
  local ret = redis.call('hscan', KEYS[1], cursor, 'COUNT', count)
  out[1] = ret[1]
  local entries = ret[2]
  for i = 1, #entries, 2 do
    local placed = false
    for k = 2, #KEYS do
      if not placed and redis.call('zscore', KEYS[k], entries[i]) then placed = true end
    end
    if not placed then out[#out + 1] = entries[i] end
  end
else
  local ret = redis.call('zscan', KEYS[which + 1], cursor, 'COUNT', count)
  out[1] = ret[1]
  local entries = ret[2]
  for i = 1, #entries, 2 do
    if redis.call('hexists', KEYS[1], entries[i]) == 0 then out[#out + 1] = entries[i] end
  end
end
return out`;

export const atomicFindStale: ScriptDef = {
  name: 'atomicFindStale',
  keyCount: 'variable',
  writes: false,
  lua,
};
