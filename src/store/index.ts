export * from './store.js';
export * from './script.js';
export * from './errors.js';
export { IoredisStore } from './ioredis-store.js';
export type { IoredisFlavor, IoredisStoreOptions } from './ioredis-store.js';
export { clientSafetyProblems } from './client-safety.js';
export { connect, safeRedisOptions } from './connect.js';
export type { ConnectOptions, HostPort } from './connect.js';
