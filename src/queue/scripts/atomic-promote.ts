import type { ScriptDef } from '../../redis/script.js';
import { NOW_LUA, PROMOTE_LUA } from './atomic-common.js';

/**
 * One bounded promotion step on one shard (the reaper's promotion pass calls it until it moves
 * fewer than PROMOTE_BATCH): up to PROMOTE_BATCH due ids from QUEUE to READY, earliest due first.
 * Only ids due for the settle time move (Dynomite: every replica has them by then; see atomicPop).
 * KEYS: meta, queue, ready. ARGV: now, server_time, settle (ms). Returns how many ids left QUEUE.
 */
const lua = `${NOW_LUA}
${PROMOTE_LUA}
return promote(KEYS[2], KEYS[3], KEYS[1], now - tonumber(ARGV[3]))`;

export const atomicPromote: ScriptDef = {
  name: 'atomicPromote',
  keyCount: 3,
  writes: true,
  lua,
};
