import { describe, expect, it } from 'vitest';
import { createQueue } from '../../src/queue/create-queue.js';
import { UnsupportedOnStoreError } from '../../src/queue/errors.js';
import type { ScriptDef } from '../../src/redis/script.js';
import { parseSimConfig, type SimConfigInput } from '../../src/sim/run/config.js';
import { networkLag } from '../../src/sim/settings/settings.js';
import { configProblems } from '../../src/sim/run/config-problems.js';
import { applicableFamilies } from '../../src/sim/faults/index.js';
import { Rng } from '../../src/sim/kernel/rng.js';
import { SimWorld } from '../../src/sim/run/world.js';
import { configurationRun, CONFIGURATIONS } from '../../src/sim/run/configurations.js';
import { outcomeOfError } from '../../src/sim/workloads/history-recorder.js';
import { compareReplicas, runSimulation } from '../../src/sim/run/run.js';
import { CallProbe, SimReplyError } from '../../src/sim/store/sim-store.js';
import { DynomiteTopology, LOCAL_REPLY_FIRST_SHARE, PEER_RETRY_MS, QUORUM_FAILED } from '../../src/sim/topology/dynomite.js';
import { wilson } from '../../src/sim/campaign/guarantees.js';
import { RUN_ON_RESUME_BYTES } from '../../src/sim/topology/dynomite-backend.js';
import type { SimNode } from '../../src/sim/store/sim-node.js';
import { world, type World } from './fixtures.js';

const dyn = (w: World) => w.topology as DynomiteTopology;
const nodeOf = (w: World, zone: string): SimNode => w.topology.nodes.find((n) => n.zone === zone)!;
const STORAGE_TEXT = 'ERR Storage: Datastore refused connection';
const PEER_TIMED_OUT_TEXT = 'ERR Peer: Connection timed out';

/**
 * Each fact of docs/DYNOMITE.md, shown on the simulated Dynomite (3 racks, fixed 1 ms latency,
 * 100 ms replication lag). Replica state is set directly on each node's keyspace, then a client of
 * rack a (its coordinator) asks.
 */
function seeded(values: Record<string, string | null>, level: 'DC_QUORUM' | 'DC_SAFE_QUORUM' | 'DC_ONE' = 'DC_QUORUM') {
  const w = world('dynomite');
  for (const n of w.topology.nodes) {
    const v = values[n.zone];
    if (v === null) n.keyspace.exec('zadd', ['h', '1', 'm']); // a key of the wrong type: HGET errors
    else if (v !== undefined) n.keyspace.exec('hset', ['h', 'f', v]);
  }
  return { w, store: w.client('c', 'a', { consistency: level }) };
}

const hgetAll = (w: World, key: string, field: string) =>
  w.topology.nodes.map((n) => n.keyspace.exec('hget', [key, field]));

describe('Dynomite as measured: replies under quorum', () => {
  it('the local reply has no priority: two peers that agree outvote it', async () => {
    const { w, store } = seeded({ a: 'local', b: 'peer', c: 'peer' });
    expect(await w.settle(store.hget('h', 'f'))).toBe('peer');
  });

  it('error replies do not vote: a local WRONGTYPE is outvoted by two peers answering 1', async () => {
    const { w, store } = seeded({ a: null });
    // a holds h as a sorted set; b and c have no h, so HSET answers 1 there
    expect(await w.settle(store.hset('h', 'f', 'v'))).toBe(1);
  });

  it('DC_QUORUM without agreement returns the first good reply to arrive', async () => {
    const { w, store } = seeded({ a: 'x', b: 'y', c: 'z' });
    // in this world the coordinator's own reply arrives first (as in LOCAL_REPLY_FIRST_SHARE of requests)
    expect(await w.settle(store.hget('h', 'f'))).toBe('x');
    const errLocal = seeded({ a: null, b: 'y', c: 'z' });
    expect(await errLocal.w.settle(errLocal.store.hget('h', 'f'))).toBe('y');
  });

  it('DC_SAFE_QUORUM without agreement fails with "Failed to achieve Quorum" after the write applied everywhere, an unknown outcome', async () => {
    const w = world('dynomite');
    w.topology.nodes.forEach((n, i) => n.keyspace.exec('hset', ['h', 'n', String(10 * i)]));
    const probe = new CallProbe();
    const store = w.client('c', 'a', { consistency: 'DC_SAFE_QUORUM', probe });
    const err = await w.settle(store.runScript(INCR, ['h'], [])).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SimReplyError);
    expect((err as Error).message).toBe(QUORUM_FAILED);
    expect(hgetAll(w, 'h', 'n')).toEqual(['1', '11', '21']);
    // the history must treat it as "may have been applied" (docs/CHECKER.md §1.2 unknown), not as a refusal
    expect(outcomeOfError(err, probe)).toBe('unknown');
  });

  it('too few good replies left for a quorum: the first error is returned, although the write ran where it was good', async () => {
    const w = world('dynomite');
    dyn(w).crashBackend(w.topology.nodes[1]!, false);
    dyn(w).crashBackend(w.topology.nodes[2]!, false);
    const store = w.client('c', 'a', { consistency: 'DC_QUORUM' });
    // the local reply (1) is good, the two peers answer storage errors: no quorum is possible
    await expect(w.settle(store.hset('h', 'f', 'v'))).rejects.toThrow(STORAGE_TEXT);
    expect(w.topology.nodes[0]!.keyspace.exec('hget', ['h', 'f'])).toBe('v');
  });

  it('DC_SAFE_QUORUM returns as soon as two replies agree, whichever they are', async () => {
    const { w, store } = seeded({ a: 'x', b: 'y', c: 'y' }, 'DC_SAFE_QUORUM');
    expect(await w.settle(store.hget('h', 'f'))).toBe('y');
  });

  it('DC_ONE: writes go to every rack, reads are local, the reply is the local one', async () => {
    const { w, store } = seeded({ a: 'local', b: 'peer', c: 'peer' }, 'DC_ONE');
    expect(await w.settle(store.hget('h', 'f'))).toBe('local');
    expect(await w.settle(store.hset('h', 'g', 'new'))).toBe(1);
    await w.advance(1_000);
    expect(hgetAll(w, 'h', 'g')).toEqual(['new', 'new', 'new']);
  });
});

/** A script whose reply depends on each replica's own state. */
const INCR: ScriptDef = {
  name: 'incr',
  keyCount: 1,
  writes: true,
  lua: "return redis.call('hincrby', KEYS[1], 'n', 1)",
  twin: (redis, keys) => redis.call('hincrby', keys[0]!, 'n', '1'),
};

/** A script that writes each replica's own TIME. */
const STAMP: ScriptDef = {
  name: 'stamp',
  keyCount: 1,
  writes: true,
  lua: "local t = redis.call('TIME') redis.call('hset', KEYS[1], 'sec', t[1]) return 1",
  twin: (redis, keys) => {
    const t = redis.call('TIME') as string[];
    redis.call('hset', keys[0]!, 'sec', t[0]!);
    return 1;
  },
};

describe('Dynomite as measured: scripts', () => {
  it('a script runs on every replica (re-execution, not effect replication): TIME is each replica’s own', async () => {
    for (const level of ['DC_ONE', 'DC_QUORUM'] as const) {
      const w = world('dynomite');
      w.topology.nodes.forEach((n, i) => (n.clock.offset = i * 100_000));
      const store = w.client('c', 'a', { consistency: level });
      await w.settle(store.runScript(STAMP, ['t'], []));
      await w.advance(1_000);
      const secs = hgetAll(w, 't', 'sec');
      expect(new Set(secs).size, level).toBe(3);
    }
  });

  it('a counter bumped in different orders gives a different reply per replica', async () => {
    const w = world('dynomite');
    const fromA = w.client('x', 'a', { consistency: 'DC_QUORUM' });
    const fromC = w.client('y', 'c', { consistency: 'DC_QUORUM' });
    const [ra, rc] = await w.settle(Promise.all([fromA.runScript(INCR, ['h'], []), fromC.runScript(INCR, ['h'], [])]));
    // a and c each ran their own first: every replica ends at 2, but the replies were voted from
    // replicas that saw the two in different orders
    expect(hgetAll(w, 'h', 'n')).toEqual(['2', '2', '2']);
    expect([ra, rc].sort()).toEqual([1, 2]);
  });
});

describe('Dynomite as measured: commands that close the connection', () => {
  it('TIME closes the connection: it and every request in flight on it fail, writes in flight still apply', async () => {
    const w = world('dynomite');
    const store = w.client('c', 'a', { consistency: 'DC_QUORUM', timeoutMs: 5_000 });
    const write = store.hset('k', 'f', 'v').catch((e: unknown) => e);
    const time = store.time().catch((e: unknown) => e);
    const [w1, t1] = await w.settle(Promise.all([write, time]));
    expect((w1 as Error).message).toMatch(/Dynomite closed the connection \(unsupported: TIME\)/);
    expect((t1 as Error).message).toMatch(/closed the connection/);
    await w.advance(1_000);
    expect(hgetAll(w, 'k', 'f')).toEqual(['v', 'v', 'v']);
  });

  it('WAIT, multi-field HSET and a 0-key script close it too; single-field HSET does not', async () => {
    const w = world('dynomite');
    const store = w.client('c', 'a', { consistency: 'DC_ONE' });
    await expect(w.settle(store.wait(1, 10))).rejects.toThrow(/unsupported: WAIT/);
    await expect(w.settle(store.runScript({ ...INCR, keyCount: 0 }, [], []))).rejects.toThrow(/EVAL with no key/);
    const multi = (store as unknown as { cmd(c: string, ...a: string[]): Promise<unknown> }).cmd('hset', 'h', 'a', '1', 'b', '2');
    await expect(w.settle(multi)).rejects.toThrow(/HSET with several fields/);
    expect(await w.settle(store.hset('h', 'a', '1'))).toBe(1);
  });
});

describe('Dynomite as measured: a backend restarted empty loses its script cache', () => {
  /** Node `i` restarts empty (its data and script cache gone), as a redis-server without persistence does. */
  const restartEmpty = async (w: World, i: number) => {
    const node = w.topology.nodes[i]!;
    w.topology.crash(node, true);
    w.topology.restart(node);
    await w.advance(PEER_RETRY_MS); // its peer links up again
  };
  const evalsha = (w: World, level: 'DC_ONE' | 'DC_QUORUM') => w.client('c', 'a', { consistency: level, evalsha: true });

  it('under quorum a restarted peer’s NOSCRIPT is outvoted: the client sees success and that replica silently skips the EVALSHA write', async () => {
    const w = world('dynomite');
    const store = evalsha(w, 'DC_QUORUM');
    expect(await w.settle(store.runScript(INCR, ['h'], []))).toBe(1); // NOSCRIPT everywhere → EVAL, cached on every node
    await w.advance(1_000);
    await restartEmpty(w, 2);
    expect(await w.settle(store.runScript(INCR, ['h'], []))).toBe(2);
    await w.advance(1_000);
    expect(hgetAll(w, 'h', 'n')).toEqual(['2', '2', null]);
  });

  it('when the local backend restarted, the EVAL fallback runs the script a second time on the peers', async () => {
    const w = world('dynomite');
    const store = evalsha(w, 'DC_ONE');
    await w.settle(store.runScript(INCR, ['h'], []));
    await w.advance(1_000);
    await restartEmpty(w, 0);
    await w.settle(store.runScript(INCR, ['h'], []));
    await w.advance(1_000);
    // the peers ran it on EVALSHA and again on the fallback EVAL; the local node once (on EVAL)
    expect(hgetAll(w, 'h', 'n')).toEqual(['1', '3', '3']);
  });
});

describe('Dynomite as measured: ordering and divergence', () => {
  it('two coordinators writing the same key concurrently leave replicas different, and the run check sees it', async () => {
    const w = world('dynomite');
    const fromA = w.client('x', 'a', { consistency: 'DC_ONE' });
    const fromB = w.client('y', 'b', { consistency: 'DC_ONE' });
    await w.settle(Promise.all([fromA.hset('k', 'f', 'A'), fromB.hset('k', 'f', 'B')]));
    await w.advance(1_000);
    const [a, b] = hgetAll(w, 'k', 'f');
    // each coordinator applied its own write last-but-one: a ends with B, b with A
    expect([a, b]).toEqual(['B', 'A']);
    expect(compareReplicas(w as never)).toEqual({ equal: false, differingKeys: ['k'] });
  });

  it('writes of one connection stay in order on each replica', async () => {
    const w = world('dynomite');
    const store = w.client('x', 'a', { consistency: 'DC_ONE' });
    await w.settle(Promise.all(['1', '2', '3'].map((v) => store.hset('k', 'f', v))));
    await w.advance(1_000);
    expect(hgetAll(w, 'k', 'f')).toEqual(['3', '3', '3']);
    expect(compareReplicas(w as never).equal).toBe(true);
  });
});

/** A script that appends ARGV[1] to a log: the log shows which writes a replica ran, and in which order. */
const APPEND: ScriptDef = {
  name: 'append',
  keyCount: 1,
  writes: true,
  lua: "local v = redis.call('hget', KEYS[1], 'log') or '' redis.call('hset', KEYS[1], 'log', v .. ARGV[1]) return 1",
  twin: (redis, keys, argv) => {
    const v = redis.call('hget', keys[0]!, 'log');
    redis.call('hset', keys[0]!, 'log', (v === false ? '' : String(v)) + argv[0]!);
    return 1;
  },
};

/** How long a call took on virtual time, and how it ended. */
async function timed<T>(w: World, call: () => Promise<T>, maxMs = 60_000): Promise<{ ms: number; value?: T; error?: Error }> {
  const start = w.kernel.now;
  try {
    const value = await w.settle(call(), maxMs);
    return { ms: w.kernel.now - start, value };
  } catch (error) {
    return { ms: w.kernel.now - start, error: error as Error };
  }
}

describe('Dynomite as measured: failures and repair', () => {
  it('a stalled peer receives its writes late and in order; only writes issued after its link timed out (25.2 s) are dropped', async () => {
    const w = world('dynomite');
    const store = w.client('c', 'a', { consistency: 'DC_ONE' });
    const t0 = w.kernel.now;
    const at = (ms: number) => w.advance(t0 + ms - w.kernel.now);
    const append = (v: string) => w.settle(store.runScript(APPEND, ['k'], [v]));
    dyn(w).pause(nodeOf(w, 'b'), 'dynomite', t0 + 40_000);
    await append('1'); // reaches a at t0 + 1 ms: the link a→b times out at t0 + 25 201 ms
    await at(25_100);
    await append('2'); // sent before the timeout: in b's socket, run on resume
    await at(25_400);
    await append('3'); // sent after it: dropped
    await at(39_000);
    expect(hgetAll(w, 'k', 'log')).toEqual(['123', null, '123']);
    await at(41_000); // b resumed at t0 + 40 s
    expect(hgetAll(w, 'k', 'log')).toEqual(['123', '12', '123']);
    await append('4'); // b answers again: the coordinator reconnects
    await w.advance(1_000);
    expect(hgetAll(w, 'k', 'log')).toEqual(['1234', '124', '1234']);
  });

  it('timeouts: datastore 5 s, peer reads timeout + 200 ms, peer writes 25.2 s', async () => {
    const local = world('dynomite');
    dyn(local).pause(nodeOf(local, 'a'), 'redis', local.kernel.now + 60_000);
    const one = local.client('c', 'a', { consistency: 'DC_ONE', timeoutMs: 60_000 });
    const datastore = await timed(local, () => one.hset('h', 'f', 'v'));
    expect(datastore.error?.message).toBe(STORAGE_TEXT);
    expect(datastore.ms).toBeGreaterThanOrEqual(5_000);
    expect(datastore.ms).toBeLessThan(5_100);

    const peers = (w: World) => ['b', 'c'].forEach((z) => dyn(w).pause(nodeOf(w, z), 'dynomite', w.kernel.now + 60_000));
    const reads = world('dynomite');
    peers(reads);
    const read = await timed(reads, () => reads.client('c', 'a', { consistency: 'DC_QUORUM', timeoutMs: 60_000 }).hget('h', 'f'));
    expect(read.error?.message).toBe(PEER_TIMED_OUT_TEXT);
    expect(read.ms).toBeGreaterThanOrEqual(5_200);
    expect(read.ms).toBeLessThan(5_300);

    const writes = world('dynomite');
    peers(writes);
    const write = await timed(writes, () => writes.client('c', 'a', { consistency: 'DC_QUORUM', timeoutMs: 60_000 }).hset('h', 'f', 'v'));
    expect(write.error?.message).toBe(PEER_TIMED_OUT_TEXT);
    expect(write.ms).toBeGreaterThanOrEqual(25_200);
    expect(write.ms).toBeLessThan(25_300);
  });

  it('the Dynomite process and its redis fail separately: node down refuses, redis dead errs after forwarding, redis paused answers late', async () => {
    const down = world('dynomite');
    down.topology.crash(nodeOf(down, 'a'), false);
    const refusedProbe = new CallProbe();
    const refused = await timed(down, () => down.client('c', 'a', { probe: refusedProbe }).hset('h', 'f', 'v'));
    expect(refused.error?.message).toMatch(/^ECONNREFUSED/);
    await down.advance(1_000);
    expect(hgetAll(down, 'h', 'f')).toEqual([null, null, null]);
    expect(outcomeOfError(refused.error, refusedProbe)).toBe('fail');

    const dead = world('dynomite');
    dyn(dead).crashBackend(nodeOf(dead, 'a'), false);
    const deadProbe = new CallProbe();
    const erred = await timed(dead, () => dead.client('c', 'a', { probe: deadProbe }).hset('h', 'f', 'v'));
    expect(erred.error?.message).toBe(STORAGE_TEXT);
    await dead.advance(1_000);
    expect(hgetAll(dead, 'h', 'f')).toEqual([null, 'v', 'v']);
    expect(outcomeOfError(erred.error, deadProbe)).toBe('unknown');

    const paused = world('dynomite');
    nodeOf(paused, 'a').keyspace.exec('hset', ['h', 'f', 'v']);
    dyn(paused).pause(nodeOf(paused, 'a'), 'redis', paused.kernel.now + 2_000);
    const late = await timed(paused, () => paused.client('c', 'a', { timeoutMs: 60_000 }).hget('h', 'f'));
    expect(late.value).toBe('v');
    expect(late.ms).toBeGreaterThanOrEqual(2_000);
  });

  it('writes reported as failed are applied: DC_ONE with the local redis dead (at once, both peers applied)', async () => {
    const w = world('dynomite');
    dyn(w).crashBackend(nodeOf(w, 'a'), false);
    const probe = new CallProbe();
    const r = await timed(w, () => w.client('c', 'a', { consistency: 'DC_ONE', probe }).runScript(APPEND, ['k'], ['x']));
    expect(r.error?.message).toBe(STORAGE_TEXT);
    expect(r.ms).toBeLessThan(10);
    await w.advance(1_000);
    expect(hgetAll(w, 'k', 'log')).toEqual([null, 'x', 'x']);
    expect(outcomeOfError(r.error, probe)).toBe('unknown');
  });

  it('writes reported as failed are applied: DC_ONE with the local redis stalled (error after 5 s, all three applied on resume)', async () => {
    const w = world('dynomite');
    const t0 = w.kernel.now;
    dyn(w).pause(nodeOf(w, 'a'), 'redis', t0 + 10_000);
    const probe = new CallProbe();
    const r = await timed(w, () => w.client('c', 'a', { consistency: 'DC_ONE', timeoutMs: 60_000, probe }).hset('h', 'f', 'v'));
    expect(r.error?.message).toBe(STORAGE_TEXT);
    expect(r.ms).toBeGreaterThanOrEqual(5_000);
    expect(hgetAll(w, 'h', 'f')).toEqual([null, 'v', 'v']);
    await w.advance(t0 + 11_000 - w.kernel.now);
    expect(hgetAll(w, 'h', 'f')).toEqual(['v', 'v', 'v']);
    expect(outcomeOfError(r.error, probe)).toBe('unknown');
  });

  it('writes reported as failed are applied: DC_QUORUM with both peer backends stalled (error after 5 s, all applied)', async () => {
    const w = world('dynomite');
    const t0 = w.kernel.now;
    for (const z of ['b', 'c']) dyn(w).pause(nodeOf(w, z), 'redis', t0 + 10_000);
    const probe = new CallProbe();
    const r = await timed(w, () => w.client('c', 'a', { consistency: 'DC_QUORUM', timeoutMs: 60_000, probe }).hset('h', 'f', 'v'));
    expect(r.error?.message).toBe(STORAGE_TEXT);
    expect(r.ms).toBeGreaterThanOrEqual(5_000);
    expect(r.ms).toBeLessThan(5_300);
    expect(hgetAll(w, 'h', 'f')).toEqual(['v', null, null]);
    await w.advance(t0 + 11_000 - w.kernel.now);
    expect(hgetAll(w, 'h', 'f')).toEqual(['v', 'v', 'v']);
    expect(outcomeOfError(r.error, probe)).toBe('unknown');
  });

  it("in a run's history, a push refused by a dead Dynomite is a fail and one answered with its redis's storage error is unknown", async () => {
    const run = (kind: 'crash-node' | 'crash-backend') =>
      runSimulation(
        parseSimConfig({
          seed: 'backend',
          topology: { kind: 'dynomite', zones: ['a', 'b', 'c'], quorumConsistency: 'DC_ONE' },
          network: { clientFailover: false },
          workload: { messages: 20, producers: 1, rate: 10, consumers: 3 },
          phases: { safetyMs: 2_500, livenessMs: 10_000 },
          faults: [kind === 'crash-node' ? { at: 500, kind, zone: 'a', loseUnreplicated: false } : { at: 500, kind, zone: 'a', loseData: false }],
        }),
      );
    const afterCrash = (r: Awaited<ReturnType<typeof run>>) =>
      r.history.filter((o) => o.type === 'push' && o.invokedAt > 1_700_000_000_500 && o.completedAt < r.livenessStart).map((o) => o.outcome);
    const refused = afterCrash(await run('crash-node'));
    const erred = afterCrash(await run('crash-backend'));
    expect(refused.length).toBeGreaterThan(0);
    expect(new Set(refused)).toEqual(new Set(['fail']));
    expect(erred.length).toBeGreaterThan(0);
    expect(new Set(erred)).toEqual(new Set(['unknown']));
  });
});

describe('the queue on Dynomite', () => {
  const base = (w: World) => ({
    name: 'q',
    quorum: w.client('c', 'a', { consistency: 'DC_QUORUM' }),
    clock: { now: () => w.kernel.now },
    timers: { setTimeout: () => 0, clearTimeout: () => undefined },
    unackInterval: 0,
  });

  it('refuses server time and durable writes at construction, with a typed error', () => {
    const w = world('dynomite');
    expect(() => createQueue({ ...base(w), serverTime: true })).toThrow(UnsupportedOnStoreError);
    expect(() => createQueue({ ...base(w), durable: { replicas: 1, timeoutMs: 100 } })).toThrow(/durable is not supported on Dynomite/);
    expect(() => createQueue({ ...base(w), mode: 'legacy' })).not.toThrow();
  });

  it('atomic pops and acks give the same reply and the same keys on every replica (client tokens and ordering keys)', async () => {
    const w = world('dynomite');
    let n = 0;
    const q = createQueue({ ...base(w), shards: { allShards: ['a', 'b', 'c'], currentShard: 'a' }, sharding: { name: 'a', nextShard: () => 'a' }, randomId: () => `tok${++n}` });
    await w.settle(q.push([1, 2, 3].map((i) => ({ id: `m${i}`, payload: 'p', timeout: 0, priority: 0 }))));
    // on Dynomite an id is poppable only once it has been due for the settle time (1 s)
    expect(await w.settle(q.pop(2))).toEqual([]);
    await w.advance(1_000);
    const popped = await w.settle(q.pop(2));
    expect(popped.map((m) => [m.id, m.token])).toEqual([['m1', 'tok2'], ['m2', 'tok2']]);
    expect(await w.settle(q.ack('m1', 'tok2'))).toBe(true);
    await w.advance(1_000);
    expect(compareReplicas(w as never)).toEqual({ equal: true, differingKeys: [] });
    await q.close();
  });

  it('a Dynomite run reports whether replicas ended equal (null on a primary with replicas)', async () => {
    const dyn = CONFIGURATIONS.find((c) => c.name === 'dynomite/DC_QUORUM/legacy/none')!;
    const pr = CONFIGURATIONS.find((c) => c.name === 'primary-replica/legacy/none')!;
    const small = (named: typeof dyn) => {
      const run = configurationRun(named, 'facts') as { workload: object; phases: object };
      return parseSimConfig({ ...run, workload: { ...run.workload, messages: 10 }, phases: { safetyMs: 2_000, livenessMs: 10_000 } });
    };
    const r = await runSimulation(small(dyn));
    expect(r.replicas).not.toBeNull();
    expect(typeof r.replicas!.equal).toBe('boolean');
    expect(r.replicas!.equal).toBe(r.replicas!.differingKeys.length === 0);
    expect((await runSimulation(small(pr))).replicas).toBeNull();
  });
});

/** A world with the configuration's own random network (not the fixture's fixed lag). */
const randomWorld = (seed: string, network: SimConfigInput['network'] = {}) => new SimWorld(parseSimConfig({ seed, topology: { kind: 'dynomite', zones: ['a', 'b', 'c'] }, network }));

describe('Dynomite as measured: a partition holds the peer-link bytes until it heals', () => {
  it('a DC_ONE write through b reaches a, not c, while b and c are cut off; the heal delivers it to c (as on the real build through a proxy)', async () => {
    const w = world('dynomite');
    const store = w.client('c', 'b', { consistency: 'DC_ONE' });
    w.network.block('b', 'c');
    w.network.block('c', 'b');
    await w.settle(store.hset('k', 'f', 'v'));
    await w.advance(6_000);
    expect(hgetAll(w, 'k', 'f')).toEqual(['v', 'v', null]);
    w.network.unblock('b', 'c');
    w.network.unblock('c', 'b');
    await w.advance(1_000);
    expect(hgetAll(w, 'k', 'f')).toEqual(['v', 'v', 'v']);
  });
});

describe('Dynomite as measured: one request’s copies leave together (issue 29)', () => {
  it('a coordinator killed just after a write: both survivors receive it (16/16 real runs), on either profile', async () => {
    let splits = 0;
    let arrived = 0;
    for (const profile of ['lan', 'wan'] as const) {
      for (let i = 0; i < 40; i++) {
        const w = randomWorld(`copies-${profile}-${i}`, { profile, lagMeanMs: 20 });
        const store = w.client('c', 'a', { consistency: 'DC_ONE' });
        await w.settle(Promise.all(['1', '2', '3', '4'].map((v) => store.runScript(APPEND, ['k'], [v]))));
        const [local] = hgetAll(w as never, 'k', 'log');
        // Killed (and restarting empty) while its copies are still on the way: a lag of 20 ms on average.
        w.topology.crash(nodeOf(w as never, 'a'), true);
        await w.advance(5_000);
        const [, b, c] = hgetAll(w as never, 'k', 'log');
        if (b !== c) splits++;
        if (b === local && String(local).length === 4) arrived++;
      }
    }
    expect(splits).toBe(0);
    // What the coordinator handed to its peer connections leaves even though it died.
    expect(arrived).toBe(80);
  });

  it('one request’s copies share their lag: under DC_ONE both peers apply a write at the same time (LAN, no jitter)', async () => {
    const w = new SimWorld(
      parseSimConfig({ seed: 'same-time', topology: { kind: 'dynomite', zones: ['a', 'b', 'c'] }, network: { latencyJitterMs: 0, lagMeanMs: 50 } }),
    );
    const store = w.client('c', 'a', { consistency: 'DC_ONE' });
    let differ = 0;
    for (let i = 0; i < 30; i++) {
      await w.settle(store.hset('k', `f${i}`, 'v'));
      // Step 1 ms at a time: b and c must never disagree on whether the write arrived.
      for (let t = 0; t < 400; t++) {
        const [, b, c] = hgetAll(w as never, 'k', `f${i}`);
        if (b !== c) differ++;
        await w.advance(1);
      }
    }
    expect(differ).toBe(0);
  });

  it('one crash of a node (restarting empty) loses no message in atomic mode (real: 0/16; 8/30 before copies left together)', async () => {
    const named = CONFIGURATIONS.find((c) => c.name === 'dynomite/DC_QUORUM/atomic/none')!;
    let lost = 0;
    for (let i = 0; i < 12; i++) {
      const rng = new Rng(`one-${i}`);
      const zone = rng.pick(['a', 'b', 'c']);
      const at = rng.int(200, 2000);
      const faults = [
        { at, kind: 'crash-node' as const, zone, loseUnreplicated: true },
        { at: at + rng.int(300, 2000), kind: 'restart-node' as const, zone },
      ];
      const r = await runSimulation(parseSimConfig({ ...configurationRun(named, `one-${i}`), faults }));
      if (!r.report.properties.atLeastOnce) lost++;
    }
    expect(lost).toBe(0);
  }, 60_000);
});

describe('Dynomite as measured: a backend paused past the datastore timeout (issue 29)', () => {
  it('drops every request queued behind the timed-out one; they never run on resume; until it reconnects requests get "Datastore refused connection"', async () => {
    const w = world('dynomite');
    const t0 = w.kernel.now;
    const at = (ms: number) => w.advance(t0 + ms - w.kernel.now);
    dyn(w).pause(nodeOf(w, 'a'), 'redis', t0 + 7_000);
    const store = w.client('c', 'a', { consistency: 'DC_ONE', timeoutMs: 60_000 });
    const field = (i: number) => `f${String(i).padStart(5, '0')}`;
    // As measured on the real build: 2,000 40-byte HSETs queued on the paused redis, then the timeout.
    const replies = Array.from({ length: 2_000 }, (_, i) => store.hset('h', field(i), 'v').then(() => 'ok', (e: Error) => e.message));
    await at(5_100); // the head, sent at t0 + 1 ms, timed out at t0 + 5 001 ms: the connection closed
    expect(new Set(await w.settle(Promise.all(replies)))).toEqual(new Set([STORAGE_TEXT]));
    // No datastore connection: refused at once, with the same text.
    const refused = await timed(w, () => store.hset('h', 'late', 'v'));
    expect(refused.error?.message).toBe(STORAGE_TEXT);
    expect(refused.ms).toBeLessThan(10);
    await at(8_000); // resumed at t0 + 7 s: the redis runs what it reads before it sees the closed connection
    const ran = nodeOf(w, 'a').keyspace.exec('hkeys', ['h']) as string[];
    expect(ran.length).toBe(Math.floor(RUN_ON_RESUME_BYTES / 40)); // 819 of 40 bytes: the first 32 KB (real: 921)
    expect(ran).toEqual(Array.from({ length: ran.length }, (_, i) => field(i)));
    for (const z of ['b', 'c']) expect(nodeOf(w, z).keyspace.exec('hlen', ['h'])).toBe(2_001);
    // The redis answers again: Dynomite reconnects and requests run.
    expect(await w.settle(store.hset('h', 'after', 'v'))).toBe(1);
    expect(nodeOf(w, 'a').keyspace.exec('hget', ['h', 'after'])).toBe('v');
  });

  it('a pause shorter than the timeout loses nothing: everything runs late and in order', async () => {
    const w = world('dynomite');
    const t0 = w.kernel.now;
    dyn(w).pause(nodeOf(w, 'a'), 'redis', t0 + 4_000);
    const store = w.client('c', 'a', { consistency: 'DC_ONE', timeoutMs: 60_000 });
    const replies = ['1', '2', '3'].map((v) => store.runScript(APPEND, ['k'], [v]));
    expect(await w.settle(Promise.all(replies))).toEqual([1, 1, 1]);
    await w.advance(1_000);
    expect(hgetAll(w, 'k', 'log')).toEqual(['123', '123', '123']);
  });
});

describe('the simulated client is the one the configuration names (issue 29)', () => {
  it('by default it is the client connect builds: one node, 5 s command timeout, never moves (every call fails while its node is down)', async () => {
    const config = parseSimConfig({});
    expect(config.network.clientFailover).toBe(false);
    expect(config.network.requestTimeoutMs).toBe(5_000);
    const w = new SimWorld(config);
    w.topology.crash(nodeOf(w as never, 'a'), false);
    const store = w.client('c', 'a');
    for (let i = 0; i < 3; i++) await expect(w.settle(store.hset('h', 'f', 'v'))).rejects.toThrow(/^ECONNREFUSED/);
    expect(store.connection.nodeZone).toBe('a');
  });

  it('with network.clientFailover it moves to the next zone’s node when refused', async () => {
    const w = new SimWorld(parseSimConfig({ network: { clientFailover: true } }));
    w.topology.crash(nodeOf(w as never, 'a'), false);
    const store = w.client('c', 'a');
    await expect(w.settle(store.hset('h', 'f', 'v'))).rejects.toThrow(/^ECONNREFUSED/);
    expect(store.connection.nodeZone).toBe('b');
    expect(await w.settle(store.hset('h', 'f', 'v'))).toBe(1);
  });

  it('the table’s rows use the shipped client, except the client-failover rows, which name a failover client', () => {
    for (const c of CONFIGURATIONS) {
      const parsed = parseSimConfig(c.config);
      expect(parsed.network.profile, c.name).toBe('lan');
      expect(parsed.network.clientFailover, c.name).toBe(c.faults === 'client-failover');
    }
  });

  it('a client-failover fault with the shipped client is refused, and the swarm does not draw one', () => {
    const config = parseSimConfig({ faults: [{ at: 0, kind: 'client-failover', actor: 'consumer-0', toZone: 'b' }] });
    expect(configProblems(config).join('\n')).toMatch(/faults\.0 \(client-failover\): network\.clientFailover is false/);
    expect(configProblems(parseSimConfig({ ...config, network: { clientFailover: true } }))).toEqual([]);
    expect(applicableFamilies(parseSimConfig({}))).not.toContain('client-failover');
    expect(applicableFamilies(parseSimConfig({ network: { clientFailover: true } }))).toContain('client-failover');
  });
});

describe('which network: the LAN and WAN profiles (issue 29)', () => {
  it('LAN (the default, as measured on loopback) has no lag spikes; WAN has 1 % of 200 ms; a field set wins over the profile', () => {
    expect(networkLag(parseSimConfig({}).network)).toEqual({ meanMs: 5, spikeProbability: 0, spikeMs: 200 });
    expect(networkLag(parseSimConfig({ network: { profile: 'wan' } }).network)).toEqual({ meanMs: 5, spikeProbability: 0.01, spikeMs: 200 });
    expect(networkLag(parseSimConfig({ network: { profile: 'lan', lagSpikeProbability: 0.5, lagMeanMs: 1 } }).network)).toEqual({ meanMs: 1, spikeProbability: 0.5, spikeMs: 200 });
  });

  it('on LAN no replicated request is delayed by a spike; on WAN some are', () => {
    const maxLag = (profile: 'lan' | 'wan') => {
      const w = randomWorld('lags', { profile, latencyJitterMs: 0 });
      let max = 0;
      for (let i = 0; i < 2_000; i++) max = Math.max(max, w.network.requestLag());
      return max;
    };
    expect(maxLag('lan')).toBeLessThan(100);
    expect(maxLag('wan')).toBeGreaterThan(200);
  });

  it('a fault-free legacy run ends with equal replicas on LAN (real: 33/33)', async () => {
    const named = CONFIGURATIONS.find((c) => c.name === 'dynomite/DC_QUORUM/legacy/none')!;
    let equal = 0;
    for (let i = 0; i < 5; i++) if ((await runSimulation(parseSimConfig(configurationRun(named, `lan-${i}`)))).replicas?.equal) equal++;
    expect(equal).toBe(5);
  }, 60_000);
});

describe('an ack the vote refused but one replica ran (issue 29)', () => {
  it('is scored unknown, not fail: the message may be gone for good (see test/sim/refused-but-applied.test.ts)', async () => {
    const w = world('dynomite');
    // Only c still holds the lease: a and b answer ZREM with 0 and outvote c's 1, which ran.
    nodeOf(w, 'c').keyspace.exec('zadd', ['unack', '1', 'm1']);
    const probe = new CallProbe();
    const store = w.client('consumer', 'a', { consistency: 'DC_QUORUM', probe });
    expect(await w.settle(store.zrem('unack', ['m1']))).toBe(0);
    expect(nodeOf(w, 'c').keyspace.exec('zscore', ['unack', 'm1'])).toBeNull();
    expect(probe.mayHaveApplied).toBe(true);
  });
});

describe('Dynomite as measured: a client whose node dies', () => {
  it("calls in flight fail within 0.1–0.2 s with ioredis's MaxRetriesPerRequestError, not after the request timeout, and may have run", async () => {
    const w = world('dynomite');
    // both peers paused: a DC_QUORUM write through a waits for them, in flight when a dies
    ['b', 'c'].forEach((z) => dyn(w).pause(nodeOf(w, z), 'dynomite', w.kernel.now + 60_000));
    const probe = new CallProbe();
    const store = w.client('c', 'a', { consistency: 'DC_QUORUM', timeoutMs: 5_000, probe });
    const t0 = w.kernel.now;
    w.kernel.after(20, () => w.topology.crash(nodeOf(w, 'a'), false));
    const r = await timed(w, () => store.hset('h', 'f', 'v'));
    expect(r.error?.message).toMatch(/^MaxRetriesPerRequestError/);
    expect(r.ms).toBeGreaterThanOrEqual(100);
    expect(r.ms).toBeLessThanOrEqual(200);
    expect(w.kernel.now - t0).toBeLessThan(5_000);
    expect(outcomeOfError(r.error, probe)).toBe('unknown');
  });

  it('the failover client moves to the next node within ~0.2 s of the death, idle included', async () => {
    const w = new SimWorld(
      parseSimConfig({
        seed: 'failover-idle',
        topology: { kind: 'dynomite', zones: ['a', 'b', 'c'] },
        network: { latencyBaseMs: 1, latencyJitterMs: 0, lagMeanMs: 0, lagSpikeProbability: 0, requestTimeoutMs: 500, clientFailover: true },
      }),
    );
    const idle = w.client('idle', 'a');
    expect(idle.connection.nodeZone).toBe('a');
    w.topology.crash(w.topology.nodes.find((n) => n.zone === 'a')!, false);
    await w.advance(150);
    expect(idle.connection.nodeZone).toBe('a');
    await w.advance(60);
    expect(idle.connection.nodeZone).toBe('b');
    // and its next call is served by that node
    expect(await w.settle(idle.hset('h', 'f', 'v'))).toBe(1);
  });
});

/** Appends `v` to the string at `k` through `store` (Redis APPEND): the value shows the order a replica ran them in. */
const appendTo = (store: { runScript: (s: ScriptDef, k: string[], a: string[]) => Promise<unknown> }, k: string, v: string) => store.runScript(APPEND, [k], [v]);

describe('Dynomite as measured: orders kept by heals and resumes', () => {
  it('a healed partition releases what it held in order, per link: nothing overtakes what was sent before it (300/300 real appends in order, 3/3)', async () => {
    // The configuration's own jittery latency: a latency drawn per held message would reorder them.
    const w = randomWorld('held-in-order', { latencyJitterMs: 5 });
    const store = w.client('c', 'b', { consistency: 'DC_ONE' });
    w.network.block('b', 'c');
    w.network.block('c', 'b');
    for (let i = 0; i < 60; i++) await w.settle(appendTo(store, 'k', `${i},`));
    w.network.unblock('b', 'c');
    w.network.unblock('c', 'b');
    // Written right after the heal: behind the held ones, never before them.
    for (let i = 60; i < 70; i++) await w.settle(appendTo(store, 'k', `${i},`));
    await w.advance(2_000);
    const [, b, c] = hgetAll(w as never, 'k', 'log');
    expect(b).toBe(Array.from({ length: 70 }, (_, i) => `${i},`).join(''));
    expect(c).toBe(b);
  });

  it('a resumed Dynomite works through each connection’s backlog in turn, the one that began first first: writes a,c,a,c,a leave b with c’s last (real: 2/2 each way)', async () => {
    for (const [order, last] of [['acaca', 'c3'], ['cacac', 'a3']] as const) {
      const w = world('dynomite');
      const via = { a: w.client('x', 'a', { consistency: 'DC_ONE' }), c: w.client('y', 'c', { consistency: 'DC_ONE' }) };
      dyn(w).pause(nodeOf(w, 'b'), 'dynomite', w.kernel.now + 5_000);
      for (const [i, z] of [...order].entries()) {
        await w.settle(via[z as 'a' | 'c'].hset('k', 'f', `${z}${i}`));
        await w.advance(300); // replicated to a and c before the next (b holds them all)
      }
      await w.advance(6_000);
      const [a, b, c] = hgetAll(w, 'k', 'f');
      expect(a).toBe(c);
      expect(b, order).toBe(last);
    }
  });
});

describe('Dynomite as measured: who wins a DC_QUORUM tie', () => {
  it('the coordinator’s own reply reaches the vote first only in the measured share: a tie goes to a peer otherwise', async () => {
    const runs = 400;
    let local = 0;
    for (let i = 0; i < runs; i++) {
      const w = randomWorld(`tie-${i}`);
      w.topology.nodes.forEach((n) => n.keyspace.exec('hset', ['h', 'f', n.zone]));
      const store = w.client('c', 'a', { consistency: 'DC_QUORUM' });
      if ((await w.settle(store.hget('h', 'f'))) === 'a') local++;
    }
    const { low, high } = wilson(local, runs);
    expect(low).toBeLessThanOrEqual(LOCAL_REPLY_FIRST_SHARE);
    expect(high).toBeGreaterThanOrEqual(LOCAL_REPLY_FIRST_SHARE);
    expect(local).toBeLessThan(runs);
  });
});

describe('Dynomite as measured: heals take time', () => {
  it('a restarted redis is served from Dynomite’s next try to reconnect, 1 s, 3 s, 7 s … after it died; refused with the storage error until then', async () => {
    for (const [downMs, servedAt] of [[400, 1_000], [1_500, 3_000], [3_200, 7_000]] as const) {
      const w = world('dynomite');
      const store = w.client('c', 'a', { consistency: 'DC_ONE', timeoutMs: 60_000 });
      const t0 = w.kernel.now;
      const at = (ms: number) => w.advance(t0 + ms - w.kernel.now);
      dyn(w).crashBackend(nodeOf(w, 'a'), false);
      await at(downMs);
      dyn(w).restartBackend(nodeOf(w, 'a'));
      await at(servedAt - 20);
      await expect(w.settle(store.hset('k', 'f', 'early')), `down ${downMs} ms`).rejects.toThrow(STORAGE_TEXT);
      await at(servedAt + 10);
      expect(await w.settle(store.hset('k', 'g', 'served'))).toBe(1);
    }
  });

  it('a restarted Dynomite’s own writes reach its peers at once; theirs reach it only from their next try, every 1 s after it died', async () => {
    const w = world('dynomite', ['a', 'b', 'c'], 0);
    const viaA = w.client('x', 'a', { consistency: 'DC_ONE' });
    const viaB = w.client('y', 'b', { consistency: 'DC_ONE' });
    const t0 = w.kernel.now;
    const at = (ms: number) => w.advance(t0 + ms - w.kernel.now);
    w.topology.crash(nodeOf(w, 'a'), false);
    await at(1_400);
    w.topology.restart(nodeOf(w, 'a'));
    await w.settle(viaA.hset('k', 'own', '1'));
    await w.settle(viaB.hset('k', 'early', '1'));
    await at(2_000 + 10);
    await w.settle(viaB.hset('k', 'late', '1'));
    await w.advance(100);
    expect(hgetAll(w, 'k', 'own')).toEqual(['1', '1', '1']);
    expect(hgetAll(w, 'k', 'early')).toEqual([null, '1', '1']);
    expect(hgetAll(w, 'k', 'late')).toEqual(['1', '1', '1']);
  });
});
