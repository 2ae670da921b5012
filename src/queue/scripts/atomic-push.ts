import type { ScriptDef } from '../../redis/script.js';
import { luaTruthy } from '../../redis/script.js';
import { keysFrom, NOW_LUA, scriptNow } from './atomic-common.js';

/**
 * Atomic push (and ensure): an upsert. For each message, the id is first taken out of every shard's
 * QUEUE, READY and UNACK (a re-push starts a new life and ends any lease on the old one), then stored
 * with the client's ordering key (its rank = priority then that key) and placed in its target shard: READY when due now, QUEUE when
 * delayed — or QUEUE always when a settle time is given (Dynomite: see `settleMs`, only promotion
 * may then put an id into READY). With `only_if_absent`, a message already present anywhere is left alone (ensure).
 * KEYS: msg, meta, leases, counters, then queue, ready, unack per shard.
 * ARGV: now, server_time, only_if_absent, settle ms, then 6 per message: shard index (1-based), id, priority,
 * delay ms, JSON, ordering key (client-generated, at most 13 digits). Returns how many messages were written.
 * Its first write is a memory-growing HSET, so a Redis past `maxmemory` refuses the whole call (OOM).
 */
const lua = `${NOW_LUA}
local msg, meta, leases = KEYS[1], KEYS[2], KEYS[3]
local nshards = (#KEYS - 4) / 3
local only_if_absent = ARGV[3] == '1'
local settle = tonumber(ARGV[4])
local written = 0
for i = 5, #ARGV, 6 do
  local shard, id, priority, delay, json, ord = tonumber(ARGV[i]), ARGV[i+1], ARGV[i+2], tonumber(ARGV[i+3]), ARGV[i+4], ARGV[i+5]
  local present = false
  for s = 0, nshards - 1 do
    for k = 1, 3 do
      if redis.call('zscore', KEYS[5 + s*3 + k - 1], id) then present = true end
    end
  end
  if not (only_if_absent and present) then
    -- HSET first: under maxmemory Redis refuses a script's first memory-growing write only while the
    -- script has written nothing, so a full Redis refuses the whole push here instead of letting a
    -- ZREM or HDEL open the way for the rest of it.
    redis.call('hset', msg, id, json)
    if present then
      for s = 0, nshards - 1 do
        for k = 1, 3 do redis.call('zrem', KEYS[5 + s*3 + k - 1], id) end
      end
    end
    redis.call('hdel', leases, id)
    local rank = priority .. string.rep('0', 13 - #ord) .. ord
    redis.call('hset', meta, id, rank)
    local base = 5 + (shard - 1) * 3
    if delay <= 0 and settle == 0 then
      redis.call('zadd', KEYS[base + 1], rank, id)
    else
      redis.call('zadd', KEYS[base], now + delay, id)
    end
    written = written + 1
  end
end
return written`;

export const atomicPush: ScriptDef = {
  name: 'atomicPush',
  keyCount: 'variable',
  writes: true,
  lua,
  twinErrorsBare: true,
  twin(redis, keys, argv) {
    const now = scriptNow(redis, argv);
    const msg = keys[0]!;
    const meta = keys[1]!;
    const leases = keys[2]!;
    const shardKeys = keysFrom(keys, 4);
    const onlyIfAbsent = argv[2] === '1';
    const settle = Number(argv[3]);
    let written = 0;
    for (let i = 4; i < argv.length; i += 6) {
      const shard = Number(argv[i]);
      const id = argv[i + 1]!;
      const priority = argv[i + 2]!;
      const delay = Number(argv[i + 3]);
      const json = argv[i + 4]!;
      const ord = argv[i + 5]!;
      // every key is asked, as the Lua does (a key of the wrong type fails the script either way)
      let present = false;
      for (const key of shardKeys) if (luaTruthy(redis.call('zscore', key, id))) present = true;
      if (onlyIfAbsent && present) continue;
      redis.call('hset', msg, id, json);
      if (present) for (const key of shardKeys) redis.call('zrem', key, id);
      redis.call('hdel', leases, id);
      const rank = priority + ord.padStart(13, '0');
      redis.call('hset', meta, id, rank);
      const base = (shard - 1) * 3;
      if (delay <= 0 && settle === 0) redis.call('zadd', shardKeys[base + 1]!, rank, id);
      else redis.call('zadd', shardKeys[base]!, String(now + delay), id);
      written++;
    }
    return written;
  },
};
