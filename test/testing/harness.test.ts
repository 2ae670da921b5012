import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { replayCommand } from '../../src/cli/commands/replay.js';
import { checkAgainstModel, compareWithRedis, HarnessFailure, judge, simulate } from '../../src/public/testing.js';
import { loadScenario, scenarioConfig } from '../../src/sim/run/scenario.js';
import { connect } from '../../src/store/connect.js';
import { UnsafeClientError } from '../../src/store/errors.js';
import { IoredisStore } from '../../src/store/ioredis-store.js';
import type { Store } from '../../src/store/store.js';
import { redisRequired, redisServerBinary, startRedisServer, type RedisServer } from '../support/redis-server.js';
import { historyFile, op } from '../support/history-lines.js';

const available = redisServerBinary() !== null;
if (!available && redisRequired) throw new Error('REQUIRE_REDIS=1 but redis-server is not installed');

async function rejection(p: Promise<unknown>): Promise<HarnessFailure> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(HarnessFailure);
  return err as HarnessFailure;
}

describe('dynoq/testing: simulate', () => {
  const dir = mkdtempSync(join(tmpdir(), 'dynoq-simulate-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('runs the user’s configuration on every seed and resolves when the properties held', async () => {
    const results = await simulate({
      config: { seed: 'mine', topology: { kind: 'primary-replica', zones: ['a', 'b'] }, queue: { mode: 'atomic', unackTimeoutMs: 1_000, serverTime: true }, workload: { messages: 30, consumers: 2 } },
      seeds: 2,
    });
    expect(results.map((r) => r.config.seed)).toEqual(['mine-0', 'mine-1']);
    expect(results.every((r) => r.report.pushed === 30 && r.config.queue.unackTimeoutMs === 1_000)).toBe(true);
    // server time on Dynomite is refused before anything runs, saying why
    await expect(simulate({ config: { seed: 'mine', topology: { kind: 'dynomite', zones: ['a', 'b'] }, queue: { serverTime: true } }, seeds: 1 })).rejects.toThrow(
      /serverTime and durable are refused on Dynomite/,
    );
  });

  it('takes the user’s createQueue options as they are (createQueue names, key names accepted)', async () => {
    const [result] = await simulate({
      config: { seed: 'opts', topology: { kind: 'primary-replica', zones: ['a', 'b'] }, workload: { messages: 20, consumers: 2 } },
      queue: { name: 'orders', prefix: 'myapp', mode: 'atomic', unackTimeout: 1_500, unackInterval: 200, serverTime: true, pollInterval: 5, sharding: 'hash' },
    });
    expect(result!.config.queue).toMatchObject({ mode: 'atomic', unackTimeoutMs: 1_500, reaperIntervalMs: 200, serverTime: true, sharding: 'hash' });
    expect(result!.config.workload.pollIntervalMs).toBe(5);
  });

  it('draws random faults only from the families given (faultFamilies, as explore --faults), in the scripts mode given', async () => {
    const config = { seed: 'fam', topology: { kind: 'primary-replica' as const, zones: ['a', 'b'] }, queue: { mode: 'atomic' as const, serverTime: true }, workload: { messages: 10, consumers: 2 }, scripts: 'compare' as const };
    const results = await simulate({ config, seeds: 3, randomFaults: 4, faultFamilies: ['client-pause', 'consumer-clocks'] });
    const kinds = new Set(results.flatMap((r) => r.config.faults.map((f) => f.kind)));
    expect(kinds.size).toBeGreaterThan(0);
    expect([...kinds].every((k) => k === 'pause-client' || k === 'consumer-clocks')).toBe(true);
    // compare mode: every script call checked against its Lua, and no difference on the correct scripts
    expect(results.every((r) => r.config.scripts === 'compare' && r.report.exercised.twinsMatchLua && r.report.properties.twinsMatchLua)).toBe(true);
    const unrestricted = await simulate({ config, seeds: 3, randomFaults: 4 });
    expect(unrestricted.flatMap((r) => r.config.faults.map((f) => f.kind)).some((k) => k !== 'pause-client' && k !== 'consumer-clocks')).toBe(true);
  });

  it('a violated property rejects with the seed and a scenario file that replays it', async () => {
    const known = scenarioConfig(loadScenario('scenarios/primary-crash-loses-pushes.json'));
    const failure = await rejection(simulate({ config: known, failuresDir: dir }));
    expect(failure.seed).toBe(known.seed);
    expect(failure.message).toContain('atLeastOnce');
    // times as the rest of the output gives them: from the run's start, never the virtual epoch
    expect(failure.message).not.toMatch(/\b1\d{12}/);
    expect(failure.message).toMatch(/ at t\+\d+ ms/);
    expect(failure.message).toContain(`npx dynoq replay ${failure.scenarioFile}`);
    expect(existsSync(failure.scenarioFile!)).toBe(true);
    // the file names the zone its node crash strikes `target`, as the scenario files do
    const written = JSON.parse(readFileSync(failure.scenarioFile!, 'utf8')) as { faults: Record<string, unknown>[] };
    expect(written.faults.find((f) => f.kind === 'crash-node')).toMatchObject({ target: 'a' });
    expect(written.faults.every((f) => !('zone' in f))).toBe(true);
    expect(await replayCommand([failure.scenarioFile!])).toBe(0);
  });
});

describe.runIf(available)('dynoq/testing on the user’s own Redis', () => {
  let server: RedisServer;
  let admin: Redis;
  beforeAll(async () => {
    server = await startRedisServer();
    admin = new Redis(server.port, '127.0.0.1');
  });
  afterAll(async () => {
    admin?.disconnect();
    await server?.stop();
  });

  it('checkAgainstModel: both modes agree with the model, with the user’s prefix, and leave no key behind', async () => {
    await admin.set('users-own-key', 'untouched');
    const outcomes = await checkAgainstModel({ redis: server.url, modes: ['atomic', 'legacy'], runs: 15, queue: { prefix: 'myapp' } });
    expect(outcomes).toEqual([
      { mode: 'atomic', runs: 15 },
      { mode: 'legacy', runs: 15 },
    ]);
    expect(await admin.keys('*')).toEqual(['users-own-key']);
  }, 60_000);

  it('checkAgainstModel: a queue that breaks a promise is caught, with a seed and path that replay it', async () => {
    const client = connect(server.url);
    try {
      const real = new IoredisStore(client);
      // A store that "loses" every ack: the queue then answers false where the model answers true.
      const broken: Store = new Proxy(real, {
        get(target, prop, receiver) {
          if (prop === 'runScript') {
            return (script: { name: string }, keys: readonly string[], args: readonly string[]) =>
              script.name === 'atomicAck' ? Promise.resolve(0) : target.runScript(script as never, keys, args);
          }
          return Reflect.get(target, prop, receiver) as unknown;
        },
      });
      const failure = await rejection(checkAgainstModel({ redis: broken, runs: 100 }));
      expect(typeof failure.seed).toBe('number');
      expect(failure.path).toMatch(/^\d+(:\d+)*$/);
      expect(failure.replay).toContain(`seed: ${failure.seed}, path: '${failure.path}', replayPath: '${failure.replayPath}'`);
      expect(failure.replay).toContain(`npx dynoq check --redis URL --mode atomic --seed ${failure.seed} --path '${failure.path}' --replay-path '${failure.replayPath}'`);
      // It says what disagreed: the operation, the model's reply and the queue's, and names the property.
      expect(failure.difference).toEqual({ operation: expect.stringMatching(/ack/i), expected: expect.any(String), got: expect.any(String) });
      expect(failure.difference!.expected).not.toBe(failure.difference!.got);
      expect(failure.message).toContain(`first differing reply: ${failure.difference!.operation}\n  expected (model): ${failure.difference!.expected}\n  got (queue):      ${failure.difference!.got}`);
      expect(failure.message).toContain('violated: every reply of the queue, and its final state, equal the reference model');
      expect(failure.message).toMatch(/\n {2}1\. t\+0 ms \{"kind":"/);
      // no hint that cannot be followed, no virtual-epoch timestamps
      expect(failure.message).not.toMatch(/verbose/i);
      expect(failure.message).not.toMatch(/\b1\d{12}/);
      // The seed and path replay the same (shrunk) counterexample at once.
      const again = await rejection(checkAgainstModel({ redis: broken, runs: 100, seed: failure.seed as number, path: failure.path!, replayPath: failure.replayPath! }));
      expect(again.message).toBe(failure.message);
    } finally {
      client.disconnect();
    }
  }, 60_000);

  it('checkAgainstModel honours the lease, the reaper period, server time and the settle time it is given', async () => {
    const client = connect(server.url);
    try {
      const real = new IoredisStore(client);
      const seen: { name: string; args: readonly string[] }[] = [];
      const watched: Store = new Proxy(real, {
        get(target, prop, receiver) {
          if (prop === 'runScript') {
            return (script: { name: string }, keys: readonly string[], args: readonly string[]) => {
              seen.push({ name: script.name, args });
              return target.runScript(script as never, keys, args);
            };
          }
          const v = Reflect.get(target, prop, receiver) as unknown;
          return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
        },
      });
      await admin.set('users-own-key', 'untouched');
      const queue = { name: 'orders', unackTimeout: 30_000, serverTime: true, settleMs: 5 };
      // The same seed without and with a reaper period: the same commands, plus the reaper's passes.
      await checkAgainstModel({ redis: watched, runs: 15, seed: 42, queue });
      const withoutReaper = seen.filter((c) => c.name === 'atomicRequeueExpired').length;
      seen.length = 0;
      const outcomes = await checkAgainstModel({ redis: watched, runs: 15, seed: 42, queue: { ...queue, unackInterval: 7_500 } });
      expect(outcomes).toEqual([{ mode: 'atomic', runs: 15 }]);
      expect(seen.filter((c) => c.name === 'atomicRequeueExpired').length).toBeGreaterThan(withoutReaper);
      const pops = seen.filter((c) => c.name === 'atomicPop');
      expect(pops.length).toBeGreaterThan(0);
      // ARGV: now (here the check's clock, sec:usec, as the scripts' TIME), server-time flag, count, lease, token, settle
      for (const p of pops) expect([p.args[1], p.args[3], p.args[5]]).toEqual(['1', '30000', '5']);
      expect(pops.every((p) => /^\d+:\d+$/.test(p.args[0]!))).toBe(true);
      expect(await admin.keys('*')).toEqual(['users-own-key']);
    } finally {
      client.disconnect();
    }
  }, 120_000);

  it('checkAgainstModel refuses a client that can re-send a script', async () => {
    const risky = new Redis(server.port, '127.0.0.1', { lazyConnect: true });
    try {
      await expect(checkAgainstModel({ redis: risky, runs: 1 })).rejects.toBeInstanceOf(UnsafeClientError);
    } finally {
      risky.disconnect();
    }
  });

  it('compareWithRedis: the simulated keyspace agrees with this server, and only its own keys are used', async () => {
    await admin.set('users-own-key', 'untouched');
    await compareWithRedis({ redis: server.url, runs: 30 });
    expect(await admin.keys('*')).toEqual(['users-own-key']);
  }, 120_000);

  it('compareWithRedis: a server that answers differently is caught, with a seed and path', async () => {
    const client = connect(server.url);
    try {
      // ZCARD off by one: what a diverging server version would look like.
      const lying = new Proxy(client, {
        get(target, prop, receiver) {
          if (prop === 'call') {
            return async (cmd: string, ...args: string[]) => {
              const reply = await target.call(cmd, ...args);
              return cmd === 'zcard' ? Number(reply) + 1 : reply;
            };
          }
          const v = Reflect.get(target, prop, receiver) as unknown;
          return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
        },
      });
      const failure = await rejection(compareWithRedis({ redis: lying, runs: 100, scripts: false }));
      expect(failure.message).toContain('zcard');
      expect(failure.replay).toContain(`seed: ${failure.seed}`);
    } finally {
      client.disconnect();
    }
  }, 60_000);
});

describe('dynoq/testing: judge', () => {
  const dir = mkdtempSync(join(tmpdir(), 'dynoq-judge-api-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const file = (name: string, lines: unknown[]) => historyFile(dir, name, lines);
  const run = { type: 'run', reaperIntervalMs: 10, recoveryBoundMs: 10 };

  it('resolves with the report when every property held', async () => {
    const report = await judge(file('clean.jsonl', [run, op('push', 'p', 0, 1, 'ok'), op('deliver', 'c1', 2, 3, 'ok', { leaseUntil: 100 }), op('ack', 'c1', 4, 5, 'ok')]));
    expect(report.acked).toBe(1);
    expect(Object.values(report.properties).every(Boolean)).toBe(true);
  });

  it('rejects with the worst violation and the command that re-judges it; `require` narrows what counts', async () => {
    const lost = file('lost.jsonl', [run, op('push', 'p', 0, 1, 'ok'), op('deliver', 'c1', 2, 3, 'ok', { leaseUntil: 100 }), op('ack', 'c1', 4, 5, 'fail')]);
    const err = await rejection(judge(lost, { end: 1_000 }));
    // The slow recovery comes first in time; the loss is worse and names the failure.
    expect(err.message).toMatch(/violated at-least-once, un-ack recovery; worst: lost-after-delivery of m1 at t\+1000 ms: /);
    expect(err.replay).toBe(`npx dynoq judge ${lost}`);
    const report = await judge(lost, { end: 1_000, require: ['noDoublePop'] });
    expect(report.properties.atLeastOnce).toBe(false);
  });

  it('bad input is a HistoryFileError naming file and line', async () => {
    const bad = file('bad.jsonl', [op('ack', 'c1', 0, 1, 'perhaps')]);
    await expect(judge(bad)).rejects.toMatchObject({ name: 'HistoryFileError', line: 1 });
  });
});
