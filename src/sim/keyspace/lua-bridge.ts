import type { LuaValue, ScriptReply } from '../../store/script.js';

/** How Redis hands a command reply to Lua: nil becomes false, arrays become tables. */
export function replyToLua(reply: ScriptReply): LuaValue {
  if (reply === null) return false;
  if (Array.isArray(reply)) return reply.map(replyToLua);
  return reply;
}
