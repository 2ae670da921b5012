import { Redis } from 'ioredis';
import RedisMock from 'ioredis-mock';
import { afterAll, beforeAll, beforeEach } from 'vitest';
import { IoredisStore } from '../../src/store/ioredis-store.js';
import { redisRequired, redisServerBinary, startRedisServer, type RedisServer } from './redis-server.js';

export type BackendName = 'ioredis-mock' | 'redis';

export interface Backend {
  readonly name: BackendName;
  /** A store on a fresh, empty keyspace for this test. */
  store(): IoredisStore;
  /** A second client on the same keyspace (another process, as far as the queue can tell). */
  secondStore(): IoredisStore;
}

/**
 * The backends a store-level suite runs on: ioredis-mock always, and a real redis-server started on
 * a free loopback port. Without redis-server the real backend is left out with a notice, unless
 * REQUIRE_REDIS=1, which makes its absence a failure.
 */
export function backendNames(): BackendName[] {
  if (redisServerBinary()) return ['ioredis-mock', 'redis'];
  if (redisRequired) throw new Error('REQUIRE_REDIS=1 but redis-server is not installed');
  console.warn('redis-server not found: real-Redis variants are not run (set REQUIRE_REDIS=1 to fail instead)');
  return ['ioredis-mock'];
}

export function useBackend(name: BackendName): Backend {
  let server: RedisServer | undefined;
  const clients: (Redis | InstanceType<typeof RedisMock>)[] = [];
  let mockPort = 0;

  beforeAll(async () => {
    if (name === 'redis') server = await startRedisServer();
  }, 20_000);

  afterAll(async () => {
    for (const c of clients.splice(0)) c.disconnect();
    await server?.stop();
  });

  beforeEach(async () => {
    for (const c of clients.splice(0)) c.disconnect();
    mockPort = 10_000 + Math.floor(Math.random() * 50_000);
  });

  const connect = (): IoredisStore => {
    if (name === 'ioredis-mock') {
      // ioredis-mock shares one keyspace between instances with the same host and port.
      const client = new RedisMock({ host: 'mock', port: mockPort });
      clients.push(client);
      return new IoredisStore(client as unknown as Redis, { flavor: 'mock' });
    }
    const client = new Redis({ host: '127.0.0.1', port: server!.port, maxRetriesPerRequest: 3 });
    clients.push(client);
    return new IoredisStore(client, { flavor: 'redis' });
  };

  return {
    name,
    store() {
      const store = connect();
      // Ordered before every later command on this connection; a client dropped unused may never see the reply.
      store.client.flushall().catch(() => undefined);
      return store;
    },
    secondStore: connect,
  };
}
