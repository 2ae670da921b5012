import { Redis, type Cluster } from 'ioredis';
import RedisMock from 'ioredis-mock';
import { afterAll, beforeAll, beforeEach } from 'vitest';
import { IoredisMockStore } from '../../src/store/ioredis-mock-store.js';
import { connect as connectClient, safeRedisOptions } from '../../src/store/connect.js';
import { IoredisStore } from '../../src/store/ioredis-store.js';
import { redisCliAvailable, startRedisCluster, type RedisCluster } from './redis-cluster.js';
import { redisRequired, redisServerBinary, startRedisServer, type RedisServer } from './redis-server.js';

export type BackendName = 'ioredis-mock' | 'redis' | 'redis-cluster';

export interface Backend {
  readonly name: BackendName;
  /** A new client on this test's keyspace, which starts empty. */
  store(): IoredisStore;
  /** Another client on the same keyspace (another process, as far as the queue can tell). */
  secondStore(): IoredisStore;
  /** Queue options this backend needs (Redis Cluster needs the hash tag). */
  readonly queueDefaults: { readonly hashTag: boolean };
}

/**
 * The backends a store-level suite runs on: ioredis-mock always, and a real redis-server started on
 * a free loopback port. Without redis-server the real backend is left out with a notice, unless
 * REQUIRE_REDIS=1, which makes its absence a failure.
 */
export function backendNames(options: { cluster?: boolean } = {}): BackendName[] {
  // DYNOQ_BACKENDS=ioredis-mock restricts a run to the in-process backend (the mutation run uses it).
  if (process.env.DYNOQ_BACKENDS === 'ioredis-mock') return ['ioredis-mock'];
  if (redisServerBinary()) {
    if (!options.cluster) return ['ioredis-mock', 'redis'];
    if (redisCliAvailable()) return ['ioredis-mock', 'redis', 'redis-cluster'];
    if (redisRequired) throw new Error('REQUIRE_REDIS=1 but redis-cli (for the Cluster suite) is not installed');
    return ['ioredis-mock', 'redis'];
  }
  if (redisRequired) throw new Error('REQUIRE_REDIS=1 but redis-server is not installed');
  console.warn('redis-server not found: real-Redis variants are not run (set REQUIRE_REDIS=1 to fail instead)');
  return ['ioredis-mock'];
}

export function useBackend(name: BackendName): Backend {
  let server: RedisServer | undefined;
  let cluster: RedisCluster | undefined;
  const clients: (Redis | Cluster | InstanceType<typeof RedisMock>)[] = [];
  let mockPort = 0;

  beforeAll(async () => {
    if (name === 'redis') server = await startRedisServer();
    if (name === 'redis-cluster') cluster = await startRedisCluster(3);
  }, 60_000);

  afterAll(async () => {
    for (const c of clients.splice(0)) c.disconnect();
    await server?.stop();
    await cluster?.stop();
  });

  beforeEach(async () => {
    for (const c of clients.splice(0)) c.disconnect();
    mockPort = 10_000 + Math.floor(Math.random() * 50_000);
    // Every test starts on an empty keyspace; flushing here, before any of its clients exists,
    // means no late FLUSHALL can wipe what another connection of the same test already wrote.
    for (const port of [...(cluster?.ports ?? []), ...(server ? [server.port] : [])]) {
      const c = new Redis({ port, host: '127.0.0.1' });
      await c.flushall();
      c.disconnect();
    }
  });

  const connect = (): IoredisStore => {
    if (name === 'ioredis-mock') {
      // ioredis-mock shares one keyspace between instances with the same host and port.
      const client = new RedisMock({ host: 'mock', port: mockPort });
      clients.push(client);
      return new IoredisMockStore(client as unknown as Redis);
    }
    if (name === 'redis-cluster') {
      // The settings connect() gives a client (the store refuses others); a generous timeout under CI load.
      const client = connectClient(undefined, { cluster: cluster!.ports.map((port) => ({ host: '127.0.0.1', port })), commandTimeout: 20_000 });
      clients.push(client);
      return new IoredisStore(client);
    }
    const client = new Redis({ ...safeRedisOptions({ commandTimeout: 20_000 }), host: '127.0.0.1', port: server!.port });
    clients.push(client);
    return new IoredisStore(client);
  };

  return {
    name,
    queueDefaults: { hashTag: name === 'redis-cluster' },
    store: connect,
    secondStore: connect,
  };
}
