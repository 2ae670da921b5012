import { Redis } from 'ioredis';
import { afterAll, beforeAll } from 'vitest';
import { startRedisServer, type RedisServer } from '../../src/real/processes/redis-server.js';

// The process code lives in src/real/processes; tests keep importing it from here.
export { freePort } from '../../src/real/processes/free-port.js';
export { redisServerBinary, startRedisServer, waitUntilAnswering, type RedisServer, type RedisServerOptions } from '../../src/real/processes/redis-server.js';

/** True when tests must fail rather than skip without Redis (CI sets REQUIRE_REDIS=1). */
export const redisRequired = process.env.REQUIRE_REDIS === '1';

/** Inside a describe: a redis-server started before its tests and stopped after, and one client on it. */
export function useRedisClient(): { readonly client: Redis } {
  let server: RedisServer | undefined;
  const handle = { client: undefined as unknown as Redis };
  beforeAll(async () => {
    server = await startRedisServer();
    handle.client = new Redis({ host: '127.0.0.1', port: server.port });
  }, 20_000);
  afterAll(async () => {
    handle.client?.disconnect();
    await server?.stop();
  });
  return handle;
}
