import type { ScriptDef } from '../../redis/script.js';
import { ACK_LUA, STALE_TOKEN_LUA, ack, keysFrom } from './atomic-common.js';

/**
 * Atomic ack: removes the id from whichever shard's UNACK holds it and deletes its payload, rank
 * and lease. Given a token, acts only while that token is the id's current lease (a consumer whose
 * lease was re-queued, or re-leased to another consumer, is refused). Returns 1 when acked.
 * KEYS: msg, meta, leases, then one UNACK per shard. ARGV: id, token ('' for none).
 */
const lua = `${STALE_TOKEN_LUA}
${ACK_LUA}
local unacks = {}
for i = 4, #KEYS do unacks[#unacks + 1] = KEYS[i] end
return ack(KEYS[1], KEYS[2], KEYS[3], unacks, ARGV[1], ARGV[2])`;

export const atomicAck: ScriptDef = {
  name: 'atomicAck',
  keyCount: 'variable',
  writes: true,
  lua,
  twinErrorsBare: true,
  twin(redis, keys, argv) {
    return ack(redis, keys[0]!, keys[1]!, keys[2]!, keysFrom(keys, 3), argv[0]!, argv[1]!);
  },
};
