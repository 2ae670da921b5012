import { Cluster, Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createQueue } from '../../src/public/dynoq.js';
import { InvalidArgumentError } from '../../src/queue/errors.js';
import { clientSafetyProblems } from '../../src/store/client-safety.js';
import { connect } from '../../src/store/connect.js';
import { UnsafeClientError } from '../../src/store/errors.js';
import { IoredisStore } from '../../src/store/ioredis-store.js';
import { redisRequired, redisServerBinary, startRedisServer, type RedisServer } from '../support/redis-server.js';

const lazy = { lazyConnect: true } as const;

describe('connect() builds clients that keep the queue’s promises', () => {
  const clients: (Redis | Cluster)[] = [];
  const keep = <T extends Redis | Cluster>(c: T): T => {
    clients.push(c);
    return c;
  };
  afterAll(() => clients.forEach((c) => c.disconnect()));

  it('a plain URL: no re-send of in-flight commands, a command timeout, one retry', () => {
    const c = keep(connect('redis://127.0.0.1:1/2', { ...lazy, commandTimeout: 1234 })) as Redis;
    expect(c.options.autoResendUnfulfilledCommands).toBe(false);
    expect(c.options.commandTimeout).toBe(1234);
    expect(c.options.maxRetriesPerRequest).toBe(1);
    expect(c.options.db).toBe(2);
    expect(clientSafetyProblems(c)).toEqual([]);
    expect(() => new IoredisStore(c)).not.toThrow();
  });

  it('Sentinel, from a URL or from options', () => {
    const c = keep(connect('redis-sentinel://:secret@s1:26379,s2/mymaster', lazy)) as Redis;
    expect(c.options.sentinels).toEqual([
      { host: 's1', port: 26379 },
      { host: 's2', port: 26379 },
    ]);
    expect(c.options.name).toBe('mymaster');
    expect(c.options.password).toBe('secret');
    expect(clientSafetyProblems(c)).toEqual([]);
    const d = keep(connect(undefined, { ...lazy, sentinels: [{ host: 's3', port: 1 }], name: 'other' })) as Redis;
    expect(d.options.name).toBe('other');
    expect(() => connect('redis-sentinel://s1:26379', lazy)).toThrow(InvalidArgumentError);
  });

  it('Cluster: node connections never re-send, and the Cluster does not retry a closed connection', () => {
    const c = keep(connect('redis-cluster://n1:7000,n2:7001', lazy)) as Cluster;
    expect(c.isCluster).toBe(true);
    expect(c.options.retryDelayOnFailover).toBe(0);
    expect(c.options.redisOptions?.autoResendUnfulfilledCommands).toBe(false);
    expect(clientSafetyProblems(c)).toEqual([]);
    // A Cluster built with ioredis defaults is refused on all three counts.
    const plain = keep(new Cluster([{ host: 'n1', port: 7000 }], { lazyConnect: true }));
    expect(clientSafetyProblems(plain)).toHaveLength(3);
  });

  it('bad URLs are typed errors that name the problem', () => {
    expect(() => connect('not a url')).toThrow(/not a URL/);
    expect(() => connect('http://127.0.0.1:6379')).toThrow(/unknown scheme http:/);
    expect(() => connect('redis-cluster://:1')).toThrow(InvalidArgumentError);
  });

  it('IoredisStore refuses a client with ioredis defaults, unless told to warn or accept', () => {
    const risky = keep(new Redis(lazy));
    let refused: unknown;
    try {
      new IoredisStore(risky);
    } catch (err) {
      refused = err;
    }
    expect(refused).toBeInstanceOf(UnsafeClientError);
    expect((refused as UnsafeClientError).problems).toHaveLength(2);
    expect((refused as UnsafeClientError).code).toBe('UNSAFE_CLIENT');
    const warn = vi.spyOn(process, 'emitWarning').mockImplementation(() => undefined);
    try {
      expect(() => new IoredisStore(risky, { clientCheck: 'warn' })).not.toThrow();
      expect(warn).toHaveBeenCalledTimes(1);
      expect(() => new IoredisStore(risky, { clientCheck: 'off' })).not.toThrow();
      expect(warn).toHaveBeenCalledTimes(1);
    } finally {
      warn.mockRestore();
    }
    // Re-sending alone, or no timeout alone, is enough to refuse.
    expect(clientSafetyProblems(keep(new Redis({ ...lazy, commandTimeout: 100 })))).toHaveLength(1);
    expect(clientSafetyProblems(keep(new Redis({ ...lazy, autoResendUnfulfilledCommands: false })))).toHaveLength(1);
  });
});

const available = redisServerBinary() !== null;
if (!available && redisRequired) throw new Error('REQUIRE_REDIS=1 but redis-server is not installed');

describe.runIf(available)('connect() on a real redis-server', () => {
  let server: RedisServer;
  beforeAll(async () => {
    server = await startRedisServer();
  });
  afterAll(async () => server?.stop());

  it('push, pop and ack through the system clock and timers, then close', async () => {
    const client = connect(server.url);
    try {
      const queue = createQueue({ name: 'connect-test', quorum: new IoredisStore(client), unackInterval: 50 });
      await queue.push([{ id: 'm1', payload: 'hello' }]);
      const [m] = await queue.pop(1, { wait: 1_000 });
      expect(m?.payload).toBe('hello');
      expect(await queue.ack(m!.id, m!.token)).toBe(true);
      expect(await queue.size()).toBe(0);
      await queue.close();
    } finally {
      await client.quit();
    }
  });

  it('an unreachable server fails a call within the command timeout instead of hanging', async () => {
    const client = connect('redis://127.0.0.1:1', { commandTimeout: 300, connectTimeout: 300 });
    client.on('error', () => undefined);
    try {
      const started = Date.now();
      await expect(client.ping()).rejects.toThrow();
      expect(Date.now() - started).toBeLessThan(5_000);
    } finally {
      client.disconnect();
    }
  });
});
