import type { ScriptDef } from '../../redis/script.js';
import { ACK_THEN_POP_LUA, ack, keysFrom, localPopKeys, pop, scriptNow } from './atomic-common.js';

/**
 * Atomic ack-and-pop: acks one message (as atomicAck) and leases the next ones from the local shard
 * (as atomicPop) in one call, so a consumer loop costs one round trip per message instead of two.
 * Returns {acked, id, payload, token, deadline, ...}.
 * KEYS: msg, meta, leases, counters, queue, ready, unack (local shard), then one UNACK per shard.
 * ARGV: now, server_time, count, unack ms, id, token, new lease token (client-generated), settle ms.
 */
const lua = `${ACK_THEN_POP_LUA}
local unacks = {}
for i = 8, #KEYS do unacks[#unacks + 1] = KEYS[i] end
local acked = ack(KEYS[1], KEYS[2], KEYS[3], unacks, ARGV[5], ARGV[6])
return pop(KEYS[1], KEYS[2], KEYS[3], ARGV[7], KEYS[5], KEYS[6], KEYS[7], now - tonumber(ARGV[8]), tonumber(ARGV[3]), now + tonumber(ARGV[4]), {acked})`;

export const atomicAckAndPop: ScriptDef = {
  name: 'atomicAckAndPop',
  keyCount: 'variable',
  writes: true,
  lua,
  twinErrorsBare: true,
  twin(redis, keys, argv) {
    const now = scriptNow(redis, argv);
    const k = localPopKeys(keys);
    const acked = ack(redis, k.msg, k.meta, k.leases, keysFrom(keys, 7), argv[4]!, argv[5]!);
    return pop(redis, k, argv[6]!, now - Number(argv[7]), Number(argv[2]), now + Number(argv[3]), [acked]);
  },
};
