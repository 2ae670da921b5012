import type { ScriptDef } from '../../redis/script.js';
import { LEASE_LUA, localPopKeys, NOW_LUA, POP_LUA, PROMOTE_LUA, pop, scriptNow } from './atomic-common.js';

/**
 * Atomic pop from one shard: promote every id due `settle` ms ago to READY, then lease up to `count` ids in
 * (priority, push order). Each leased id comes back as id, payload, token, deadline.
 * KEYS: msg, meta, leases, counters, queue, ready, unack. ARGV: now, server_time, count, unack ms, lease token (client-generated), settle ms.
 */
const lua = `${NOW_LUA}
${PROMOTE_LUA}
${LEASE_LUA}
${POP_LUA}
return pop(KEYS[1], KEYS[2], KEYS[3], ARGV[5], KEYS[5], KEYS[6], KEYS[7], now - tonumber(ARGV[6]), tonumber(ARGV[3]), now + tonumber(ARGV[4]), {})`;

export const atomicPop: ScriptDef = {
  name: 'atomicPop',
  keyCount: 7,
  writes: true,
  lua,
  twinErrorsBare: true,
  twin(redis, keys, argv) {
    const now = scriptNow(redis, argv);
    return pop(redis, localPopKeys(keys), argv[4]!, now - Number(argv[5]), Number(argv[2]), now + Number(argv[3]), []);
  },
};
