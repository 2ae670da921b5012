import { Command, Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createQueue } from '../../src/queue/create-queue.js';
import { InvalidArgumentError, UnsupportedOnStoreError } from '../../src/queue/errors.js';
import { atomicPop } from '../../src/queue/scripts/atomic-pop.js';
import { clientSafetyProblems } from '../../src/store/client-safety.js';
import { connect, type HostPort } from '../../src/store/connect.js';
import { freePort, redisRequired, redisServerBinary, startRedisServer, type RedisServer } from '../support/redis-server.js';
import { IoredisStore } from '../../src/store/ioredis-store.js';

/** What a Dynomite connection needs (DYNOMITE.md "Commands that close the connection", "Scripts"). */
describe('connect() and IoredisStore for Dynomite', () => {
  const clients: Redis[] = [];
  afterAll(() => clients.forEach((c) => c.disconnect()));
  const dyn = (url = 'redis://127.0.0.1:1', consistency: 'DC_ONE' | 'DC_QUORUM' | 'DC_SAFE_QUORUM' = 'DC_QUORUM') => {
    const c = connect(url, { lazyConnect: true, dynomite: { consistency } }) as Redis;
    clients.push(c);
    return c;
  };

  it('turns off the CLIENT SETINFO handshake and keeps the safe settings', () => {
    const c = dyn();
    expect(c.options.disableClientInfo).toBe(true);
    expect(c.options.db).toBe(0);
    expect(clientSafetyProblems(c)).toEqual([]);
  });

  it('sets the connection’s consistency level on every ready (first connect and reconnects), holding other commands until it is answered', async () => {
    const sent: string[] = [];
    const levels: Command[] = [];
    const spy = vi.spyOn(Redis.prototype, 'sendCommand').mockImplementation(function (this: Redis, command: Command) {
      sent.push([command.name, ...command.args.map(String)].join(' '));
      if (command.name === 'DYNO_CONFIG:CONN_CONSISTENCY') levels.push(command);
      else command.resolve('done');
      return command.promise;
    });
    try {
      const c = dyn(undefined, 'DC_SAFE_QUORUM');
      (c as unknown as { status: string }).status = 'ready';
      c.emit('ready');
      const get = c.get('k');
      expect(sent).toEqual(['DYNO_CONFIG:CONN_CONSISTENCY DC_SAFE_QUORUM']);
      levels[0]!.resolve('OK');
      expect(await get).toBe('done');
      expect(sent).toEqual(['DYNO_CONFIG:CONN_CONSISTENCY DC_SAFE_QUORUM', 'get k']);
      c.emit('ready');
      expect(sent.at(-1)).toBe('DYNO_CONFIG:CONN_CONSISTENCY DC_SAFE_QUORUM');
    } finally {
      spy.mockRestore();
    }
  });

  it('refuses a database other than 0 and an unknown level', () => {
    expect(() => dyn('redis://127.0.0.1:1/3')).toThrow(InvalidArgumentError);
    expect(() => dyn(undefined, 'DC_EACH' as 'DC_ONE')).toThrow(/DC_ONE, DC_QUORUM, DC_SAFE_QUORUM/);
  });

  it('the store never sends TIME or WAIT (they close the connection) and runs scripts as EVAL, not EVALSHA', async () => {
    const c = dyn();
    // no server here: the start check's INFO would fail before the mocked EVAL
    const store = new IoredisStore(c, { dynomite: true, evictionCheck: 'off' });
    const sent = vi.spyOn(c, 'sendCommand');
    await expect(store.time()).rejects.toThrow(UnsupportedOnStoreError);
    await expect(store.wait(1, 10)).rejects.toThrow(UnsupportedOnStoreError);
    expect(sent).not.toHaveBeenCalled();
    const evalsha = vi.spyOn(c, 'evalsha');
    const evalCall = vi.spyOn(c, 'eval').mockResolvedValue([]);
    await store.runScript(atomicPop, ['a', 'b', 'c', 'd', 'e', 'f', 'g'], ['0', '0', '1', '10', 't', '0']);
    expect(evalsha).not.toHaveBeenCalled();
    expect(evalCall).toHaveBeenCalledOnce();
  });

  it('the queue refuses serverTime and durable on a Dynomite store', () => {
    const store = new IoredisStore(dyn(), { dynomite: true });
    const base = { name: 'q', quorum: store, clock: { now: () => 0 }, timers: { setTimeout: () => 0, clearTimeout: () => undefined }, unackInterval: 0 };
    expect(() => createQueue({ ...base, serverTime: true })).toThrow(UnsupportedOnStoreError);
    expect(() => createQueue({ ...base, durable: { replicas: 2, timeoutMs: 100 } })).toThrow(UnsupportedOnStoreError);
    expect(() => createQueue(base)).not.toThrow();
  });
});

describe('connect() for Dynomite: opt-in zone failover', () => {
  it('validates dynomite.failover: an array of { host, port }', () => {
    const bad = (failover: unknown) => () => connect('redis://127.0.0.1:1', { lazyConnect: true, dynomite: { consistency: 'DC_ONE', failover: failover as never } });
    expect(bad('127.0.0.1:2')).toThrow(/dynomite\.failover.*not an array/);
    expect(bad([{ port: 2 }])).toThrow(/item 0: .* has no host/);
    expect(bad([{ host: 'h', port: 0 }])).toThrow(/item 0: port 0 is not a TCP port/);
    expect(bad([{ host: 'h', port: 70_000 }])).toThrow(InvalidArgumentError);
    const ok = connect('redis://127.0.0.1:1', { lazyConnect: true, dynomite: { consistency: 'DC_ONE', failover: [{ host: '127.0.0.1', port: 2 }] } }) as Redis;
    expect(clientSafetyProblems(ok)).toEqual([]);
    ok.disconnect();
  });
});

const available = redisServerBinary() !== null;
if (!available && redisRequired) throw new Error('REQUIRE_REDIS=1 but redis-server is not installed');

/**
 * The shipped client against the opt-in failover, on a real redis-server standing in for the other
 * rack's node (it answers DYNO_CONFIG with an error, which the client emits) and a loopback port where
 * nothing listens standing in for the home node that is down.
 */
describe.runIf(available)('connect() for Dynomite with its node down', () => {
  let server: RedisServer;
  const clients: Redis[] = [];
  beforeAll(async () => {
    server = await startRedisServer();
  }, 20_000);
  afterAll(async () => {
    clients.forEach((c) => c.disconnect());
    await server?.stop();
  });
  const make = async (failover?: HostPort[]) => {
    const down = await freePort();
    const c = connect(`redis://127.0.0.1:${down}`, { dynomite: { consistency: 'DC_ONE', ...(failover ? { failover } : {}) } }) as Redis;
    c.on('error', () => undefined);
    clients.push(c);
    return c;
  };

  it('by default it never moves: every call fails with MaxRetriesPerRequestError', async () => {
    const c = await make();
    for (let i = 0; i < 3; i++) await expect(c.set('k', 'v')).rejects.toThrow(/MaxRetriesPerRequest|max retries/i);
    expect(c.options.port).not.toBe(server.port);
  });

  it('with dynomite.failover it moves to the next node when the connection is refused, and stays there', async () => {
    const c = await make([{ host: '127.0.0.1', port: server.port }]);
    await new Promise<void>((resolve) => c.once('ready', () => resolve()));
    expect(c.options.port).toBe(server.port);
    expect(await c.set('failover', 'v')).toBe('OK');
    expect(await c.get('failover')).toBe('v');
  });
});
