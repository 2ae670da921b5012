import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InvalidArgumentError } from '../../src/queue/errors.js';
import { checkAgainstModel, compareWithRedis, HarnessFailure, judge, RedisUnavailableError, simulate } from '../../src/public/testing.js';
import { connect } from '../../src/store/connect.js';
import { IoredisStore } from '../../src/store/ioredis-store.js';
import type { Store } from '../../src/store/store.js';
import { redisServerBinary, startRedisServer, type RedisServer } from '../support/redis-server.js';

/** Port 1 on loopback: nothing listens there, so a connection is refused at once. */
const NOBODY = 'redis://127.0.0.1:1';

async function thrown(p: Promise<unknown>): Promise<Error> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(Error);
  expect(err).not.toBeInstanceOf(HarnessFailure);
  return err as Error;
}

describe('dynoq/testing: a mistake in the options is an argument error, raised before anything runs', () => {
  it.each([
    ['checkAgainstModel runs: 0', () => checkAgainstModel({ redis: NOBODY, runs: 0 }), /invalid runs: must be a whole number ≥ 1, got 0/],
    ['checkAgainstModel runs: 1.5', () => checkAgainstModel({ redis: NOBODY, runs: 1.5 }), /invalid runs/],
    ['checkAgainstModel modes: bogus', () => checkAgainstModel({ redis: NOBODY, modes: ['bogus' as never] }), /invalid modes: "bogus" is not one of atomic, legacy/],
    ['checkAgainstModel modes: []', () => checkAgainstModel({ redis: NOBODY, modes: [] }), /invalid modes: must be a non-empty list/],
    ['checkAgainstModel queue: unknown key', () => checkAgainstModel({ redis: NOBODY, queue: { bogus: 1 } as never }), /invalid queue\.bogus: is not a queue option \(createQueue takes name, prefix/],
    ['checkAgainstModel queue: a clock', () => checkAgainstModel({ redis: NOBODY, queue: { clock: { now: () => 0 } } }), /invalid queue\.clock: checkAgainstModel cannot honour it: the check drives the clock itself/],
    ['checkAgainstModel queue: a connection', () => checkAgainstModel({ redis: NOBODY, queue: { quorum: {} as never } }), /invalid queue\.quorum: checkAgainstModel cannot honour it: the harness connects the queue itself/],
    ['checkAgainstModel queue: sharding', () => checkAgainstModel({ redis: NOBODY, queue: { sharding: 'hash' } }), /invalid queue\.sharding: checkAgainstModel cannot honour it/],
    ['checkAgainstModel queue: legacy + serverTime', () => checkAgainstModel({ redis: NOBODY, queue: { mode: 'legacy', serverTime: true } }), /invalid option mode: serverTime, durable and promoteInReaper are atomic-mode options/],
    ['checkAgainstModel serverTime with modes legacy', () => checkAgainstModel({ redis: NOBODY, modes: ['legacy'], queue: { serverTime: true } }), /invalid queue\.serverTime: is an atomic-mode option/],
    ['checkAgainstModel modes against queue.mode', () => checkAgainstModel({ redis: NOBODY, modes: ['atomic', 'legacy'], queue: { mode: 'atomic' } }), /invalid modes: \["atomic","legacy"\] differs from queue\.mode "atomic"/],
    ['checkAgainstModel reaper far too often', () => checkAgainstModel({ redis: NOBODY, queue: { unackTimeout: 60_000, unackInterval: 1 } }), /invalid queue\.unackInterval: 1 ms is too short/],
    ['simulate without topology.kind', () => simulate({ config: { topology: { zones: ['a'] } } as never }), /invalid config\.topology\.kind: is required: "primary-replica" \(Redis with Sentinel\) or "dynomite"/],
    ['simulate without config', () => simulate({ seeds: 1 }), /invalid config\.topology\.kind: is required/],
    ['simulate queue: reaperBatch', () => simulate({ config: { topology: { kind: 'primary-replica' } }, queue: { reaperBatch: 5 } }), /invalid queue\.reaperBatch: simulate cannot honour it: the simulator reaps in the default batches/],
    ['simulate queue: a name given twice', () => simulate({ config: { topology: { kind: 'primary-replica' }, queue: { unackTimeoutMs: 1_000 } }, queue: { unackTimeout: 2_000 } }), /invalid queue\.unackTimeout: is also given as config\.queue\.unackTimeoutMs: give it once/],
    ['simulate queue: no reaper', () => simulate({ config: { topology: { kind: 'primary-replica' } }, queue: { unackInterval: 0 } }), /invalid queue\.unackInterval: simulate needs a background reaper/],
    ['checkAgainstModel queue: bad value', () => checkAgainstModel({ redis: NOBODY, queue: { reaperBatch: -1 } }), /invalid option reaperBatch/],
    ['compareWithRedis runs: -1', () => compareWithRedis({ redis: NOBODY, runs: -1 }), /invalid runs/],
    ['simulate seeds: 0', () => simulate({ seeds: 0 }), /invalid seeds: must be a whole number ≥ 1, got 0/],
    ['simulate seeds: -1', () => simulate({ seeds: -1 }), /invalid seeds/],
    ['simulate seeds: []', () => simulate({ seeds: [] }), /invalid seeds/],
    ['simulate seeds: [""]', () => simulate({ seeds: [''] }), /every seed must be a non-empty string/],
    ['simulate require: bogus', () => simulate({ seeds: 1, require: ['bogus' as never] }), /invalid require: "bogus" is not one of atLeastOnce/],
    ['simulate randomFaults: -1', () => simulate({ seeds: 1, randomFaults: -1 }), /invalid randomFaults/],
    ['simulate faultFamilies: bogus', () => simulate({ seeds: 1, randomFaults: 1, faultFamilies: ['bogus' as never] }), /invalid faultFamilies: "bogus" is not one of node-crash, partition/],
    ['simulate faultFamilies without randomFaults', () => simulate({ seeds: 1, faultFamilies: ['partition'] }), /invalid faultFamilies: chooses the families randomFaults draws from: give randomFaults too/],
    ['judge require: bogus', () => judge('no-such-file.jsonl', { require: ['bogus' as never] }), /invalid require/],
  ])('%s', async (_, call, message) => {
    const err = await thrown(call());
    expect(err).toBeInstanceOf(InvalidArgumentError);
    expect(err.message).toMatch(message);
  });
});

describe('dynoq/testing: an unusable Redis is a RedisUnavailableError with the cause, not a verdict', () => {
  it.each([
    ['checkAgainstModel', () => checkAgainstModel({ redis: NOBODY, runs: 2 })],
    ['compareWithRedis', () => compareWithRedis({ redis: NOBODY, runs: 1 })],
  ])('%s on a refused connection', async (_, call) => {
    const err = await thrown(call());
    expect(err).toBeInstanceOf(RedisUnavailableError);
    expect(err.message).toContain('cannot use the Redis at redis://127.0.0.1:1: connect ECONNREFUSED');
    expect((err.cause as { code?: string }).code).toBe('ECONNREFUSED');
  }, 20_000);

  describe.runIf(redisServerBinary() !== null)('Redis lost in the middle of a check', () => {
    let server: RedisServer;
    beforeAll(async () => {
      server = await startRedisServer();
    });
    afterAll(async () => {
      await server?.stop();
    });

    it('checkAgainstModel: a connection closing mid-run is not a disagreement', async () => {
      const client = connect(server.url);
      try {
        const real = new IoredisStore(client);
        let scripts = 0;
        // The preflight read works; the third script call finds the connection closed.
        const dying: Store = new Proxy(real, {
          get(target, prop, receiver) {
            if (prop === 'runScript') {
              return (script: never, keys: readonly string[], args: readonly string[]) =>
                ++scripts > 2 ? Promise.reject(new Error('Connection is closed.')) : target.runScript(script, keys, args);
            }
            const v = Reflect.get(target, prop, receiver) as unknown;
            return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
          },
        });
        const err = await thrown(checkAgainstModel({ redis: dying, runs: 5 }));
        expect(err).toBeInstanceOf(RedisUnavailableError);
        expect((err.cause as Error).message).toBe('Connection is closed.');
      } finally {
        client.disconnect();
      }
    }, 60_000);

    it('compareWithRedis: a client that times out mid-run is not a difference', async () => {
      const client = connect(server.url);
      try {
        let calls = 0;
        const dying = new Proxy(client, {
          get(target, prop, receiver) {
            if (prop === 'call') return (...args: [string, ...string[]]) => (++calls > 3 ? Promise.reject(new Error('Command timed out')) : target.call(...args));
            const v = Reflect.get(target, prop, receiver) as unknown;
            return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
          },
        }) as Redis;
        const err = await thrown(compareWithRedis({ redis: dying, runs: 5, scripts: false }));
        expect(err).toBeInstanceOf(RedisUnavailableError);
        expect((err.cause as Error).message).toBe('Command timed out');
      } finally {
        client.disconnect();
      }
    }, 60_000);
  });
});
