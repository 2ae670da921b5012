export * from './store.js';
export type { LuaRedis, LuaTable, LuaValue, ScriptDef, ScriptReply } from '../redis/script.js';
export * from './errors.js';
export { IoredisStore } from './ioredis-store.js';
