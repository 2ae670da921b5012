import type { ScriptDef } from '../../redis/script.js';

/**
 * Atomic findStaleMessages: ids that break the layout's invariants — queued or leased without a
 * payload, or with a payload but neither queued nor leased in any shard. Read-only; returns ids.
 * KEYS: msg, then queue, ready, unack per shard. ARGV: limit.
 */
const lua = `local msg = KEYS[1]
local limit = tonumber(ARGV[1])
local stale = {}
local seen = {}
for i = 2, #KEYS do
  local ids = redis.call('zrange', KEYS[i], 0, -1)
  for j = 1, #ids do
    seen[ids[j]] = true
    if #stale < limit and redis.call('hexists', msg, ids[j]) == 0 then stale[#stale + 1] = ids[j] end
  end
end
local all = redis.call('hkeys', msg)
for j = 1, #all do
  if #stale < limit and not seen[all[j]] then stale[#stale + 1] = all[j] end
end
return stale`;

export const atomicFindStale: ScriptDef = {
  name: 'atomicFindStale',
  keyCount: 'variable',
  writes: false,
  lua,
};
