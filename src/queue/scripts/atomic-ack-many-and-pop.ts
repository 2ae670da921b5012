import type { LuaValue, ScriptDef } from '../../redis/script.js';
import { ACK_THEN_POP_LUA, ack, keysFrom, localPopKeys, pop, scriptNow } from './atomic-common.js';

/**
 * Atomic ack-many-and-pop: acks every (id, token) pair in order (each as atomicAck) and, when count
 * is above 0, leases the next ones from the local shard (as atomicPop), all in one call: a consumer
 * loop that handles a batch costs one call per batch, and `ackMany` one call per batch of acks.
 * Returns one 1/0 per pair, then {id, payload, token, deadline} per leased message.
 * KEYS: msg, meta, leases, counters, queue, ready, unack (local shard), then one UNACK per shard.
 * ARGV: now, server_time, count (0: no pop), unack ms, new lease token, settle ms, then id, token per ack.
 */
const lua = `${ACK_THEN_POP_LUA}
local unacks = {}
for i = 8, #KEYS do unacks[#unacks + 1] = KEYS[i] end
local out = {}
for i = 7, #ARGV, 2 do out[#out + 1] = ack(KEYS[1], KEYS[2], KEYS[3], unacks, ARGV[i], ARGV[i + 1]) end
local count = tonumber(ARGV[3])
if count == 0 then return out end
return pop(KEYS[1], KEYS[2], KEYS[3], ARGV[5], KEYS[5], KEYS[6], KEYS[7], now - tonumber(ARGV[6]), count, now + tonumber(ARGV[4]), out)`;

export const atomicAckManyAndPop: ScriptDef = {
  name: 'atomicAckManyAndPop',
  keyCount: 'variable',
  writes: true,
  lua,
  twinErrorsBare: true,
  twin(redis, keys, argv) {
    const now = scriptNow(redis, argv);
    const k = localPopKeys(keys);
    const unacks = keysFrom(keys, 7);
    const out: LuaValue[] = [];
    for (let i = 6; i < argv.length; i += 2) out.push(ack(redis, k.msg, k.meta, k.leases, unacks, argv[i]!, argv[i + 1]!));
    const count = Number(argv[2]);
    if (count === 0) return out;
    return pop(redis, k, argv[4]!, now - Number(argv[5]), count, now + Number(argv[3]), out);
  },
};
