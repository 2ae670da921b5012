export * from './store.js';
export type { LuaRedis, LuaTable, LuaValue, ScriptDef, ScriptReply } from '../redis/script.js';
export * from './errors.js';
export { IoredisStore } from './ioredis-store.js';
export type { IoredisStoreOptions } from './ioredis-store.js';
export { clientSafetyProblems } from './client-safety.js';
export { connect, safeRedisOptions } from './connect.js';
export type { ConnectOptions, HostPort } from './connect.js';
