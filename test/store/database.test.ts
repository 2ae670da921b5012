import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createQueue } from '../../src/public/dynoq.js';
import { DynoqError, InvalidArgumentError } from '../../src/queue/errors.js';
import { connect } from '../../src/store/connect.js';
import { DatabaseRefusedError } from '../../src/store/errors.js';
import { IoredisStore } from '../../src/store/ioredis-store.js';
import { redisRequired, redisServerBinary, startRedisServer, type RedisServer } from '../support/redis-server.js';

/** The `/db` of a Redis URL: checked at connect(), and a database the server refuses is never replaced by database 0. */
describe('the database of a Redis URL', () => {
  it.each(['abc', '-1', '2x', '1.5', ' 1'])('connect() refuses /%s with InvalidArgumentError, before connecting', (db) => {
    expect(() => connect(`redis://127.0.0.1:1/${encodeURIComponent(db)}`, { lazyConnect: true })).toThrow(InvalidArgumentError);
    expect(() => connect(`redis://127.0.0.1:1/${encodeURIComponent(db)}`, { lazyConnect: true })).toThrow(/not a non-negative integer/);
  });

  it('and a ?db= query or redisOptions.db that is not a non-negative integer', () => {
    expect(() => connect('redis://127.0.0.1:1?db=x', { lazyConnect: true })).toThrow(InvalidArgumentError);
    expect(() => connect('redis://127.0.0.1:1', { lazyConnect: true, redisOptions: { db: -1 } })).toThrow(InvalidArgumentError);
  });

  it('accepts /0, /15 and no path', () => {
    for (const url of ['redis://127.0.0.1:1', 'redis://127.0.0.1:1/', 'redis://127.0.0.1:1/0', 'redis://127.0.0.1:1/15']) {
      connect(url, { lazyConnect: true }).disconnect();
    }
  });
});

const available = redisServerBinary() !== null;
if (!available && redisRequired) throw new Error('REQUIRE_REDIS=1 but redis-server is not installed');

describe.runIf(available)('a database the server refuses (databases 4)', () => {
  let server: RedisServer;
  beforeAll(async () => {
    server = await startRedisServer({ args: ['--databases', '4'] });
  });
  afterAll(async () => server?.stop());
  const keysInDb0 = async () => {
    const db0 = connect(server.url);
    try {
      return await db0.dbsize();
    } finally {
      db0.disconnect();
    }
  };

  it('push fails with DatabaseRefusedError and writes nothing to database 0', async () => {
    const client = connect(`${server.url}/99`);
    const errors: Error[] = [];
    client.on('error', (err: Error) => errors.push(err));
    const queue = createQueue({ name: 'wrong-db', quorum: new IoredisStore(client) });
    try {
      const pushed = queue.push([{ id: 'm1', payload: 'p' }]);
      await expect(pushed).rejects.toBeInstanceOf(DatabaseRefusedError);
      await expect(pushed).rejects.toBeInstanceOf(DynoqError);
      await expect(pushed).rejects.toThrow(/Redis refused database 99 \(ERR DB index is out of range\)/);
      // Every later command is refused too.
      await expect(queue.size()).rejects.toBeInstanceOf(DatabaseRefusedError);
      await queue.close();
    } finally {
      client.disconnect();
    }
    expect(await keysInDb0()).toBe(0);
  });

  it('a database the server has works as before, and its keys are in that database', async () => {
    const client = connect(`${server.url}/3`);
    const queue = createQueue({ name: 'right-db', quorum: new IoredisStore(client) });
    try {
      await queue.push([{ id: 'm1', payload: 'p' }]);
      expect(await queue.size()).toBe(1);
      await queue.close();
      expect(await client.dbsize()).toBeGreaterThan(0);
    } finally {
      client.disconnect();
    }
    expect(await keysInDb0()).toBe(0);
  });
});
