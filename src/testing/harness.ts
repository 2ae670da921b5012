import { mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Cluster, Redis } from 'ioredis';
import type { ModelCheckQueueOptions } from '../harness/model-check.js';
import { ModelCheckFailure } from '../harness/model-check-failure.js';
import type { QueueMode } from '../queue/dyno-queue.js';
import { parseSimConfig, type SimConfigInput } from '../sim/config.js';
import { PROPERTY_NAMES, type PropertyName } from '../model/properties.js';
import { generateFaults } from '../sim/faults/index.js';
import { Rng } from '../sim/rng.js';
import { relativeTimes } from '../report/relative-times.js';
import { runSimulation, SIM_EPOCH, type SimResult } from '../sim/run.js';
import { connect } from '../store/connect.js';
import { IoredisStore } from '../store/ioredis-store.js';
import type { Store } from '../store/store.js';
import { RedisUnavailableError, unavailability } from '../store/redis-unavailable.js';
import { fastCheckReplay, HarnessFailure } from './failure.js';
import { needingFastCheck } from './optional-peer.js';
import { checkModes, checkQueueOptions, checkRandomFaults, checkRequired, checkSeeds, optionalInteger, optionalString, positiveCount } from './harness-options.js';

/** Where a check runs: a Redis URL (connected with `connect()` and closed afterwards), a client, or a Store. */
export type RedisTarget = string | Redis | Cluster | Store;

function isStore(t: RedisTarget): t is Store {
  return typeof (t as Store).runScript === 'function';
}

/** How a target is named in an error (a URL without its password). */
function describeTarget(target: RedisTarget): string {
  if (typeof target !== 'string') return isStore(target) ? 'the given store' : 'the given client';
  try {
    const url = new URL(target);
    if (url.password) url.password = '***';
    return url.toString();
  } catch {
    return target;
  }
}

/** The harness's own client for a URL; its connection errors are kept (they say why, e.g. ECONNREFUSED) instead of logged. */
function ownClient(url: string): { client: Redis | Cluster; seen: { error?: Error } } {
  const client = connect(url);
  const seen: { error?: Error } = {};
  client.on('error', (err: Error) => {
    seen.error = err;
  });
  return { client, seen };
}

/** One harmless read first, so that an unusable Redis is a RedisUnavailableError before any check runs. */
async function reachable(target: RedisTarget, ping: () => Promise<unknown>, seen: { error?: Error } = {}): Promise<void> {
  try {
    await ping();
  } catch (err) {
    throw new RedisUnavailableError(describeTarget(target), seen.error ?? err);
  }
}

/**
 * A check's failure: Redis becoming unusable mid-run is a RedisUnavailableError (with the error
 * seen as cause); anything else is the thing under test disagreeing.
 */
function failureOf(target: RedisTarget, err: unknown, disagreement: () => HarnessFailure): Error {
  const cause = unavailability(err);
  return cause ? new RedisUnavailableError(describeTarget(target), cause) : disagreement();
}

async function withStore<T>(target: RedisTarget, fn: (store: Store, isCluster: boolean) => Promise<T>): Promise<T> {
  if (isStore(target)) {
    const client = (target as Partial<IoredisStore>).client as { isCluster?: boolean } | undefined;
    await reachable(target, () => target.time());
    return fn(target, client?.isCluster === true);
  }
  const { client, seen } = typeof target === 'string' ? ownClient(target) : { client: target, seen: {} };
  try {
    const store = new IoredisStore(client);
    await reachable(target, () => store.time(), seen);
    return await fn(store, client.isCluster === true);
  } finally {
    if (typeof target === 'string') client.disconnect();
  }
}

export interface CheckAgainstModelOptions {
  /** Your Redis: a URL, an ioredis client (checked like any client given to the queue), or a Store. */
  readonly redis: RedisTarget;
  /** Queue modes to check (default: `['atomic']`). */
  readonly modes?: readonly QueueMode[];
  /** Generated command sequences per mode (default 100). */
  readonly runs?: number;
  /** fast-check seed and shrink path, to replay a failure. */
  readonly seed?: number;
  readonly path?: string;
  /** The counterexample's replayPath (the check's failure message gives all three). */
  readonly replayPath?: string;
  /**
   * Your queue's options (prefix, hashTag, durable writes, payload limit). The lease length, the
   * shards and the clock are the check's own: the model is one shard on a hand-driven clock.
   * `hashTag` defaults to true on a Cluster.
   */
  readonly queue?: ModelCheckQueueOptions;
  /** Queue names are `<namePrefix><n>` (default `dynoq-check-<pid>-`); each sequence clears its keys. */
  readonly namePrefix?: string;
}

export interface CheckOutcome {
  readonly mode: QueueMode;
  readonly runs: number;
}

/**
 * The model-based check (`dynoq check`) on your Redis with your queue options: random sequences of
 * API calls (push, pops, ack, release, extend, reschedule, removes, ensure, the reaper's calls,
 * reads, predicates, findStaleMessages), damage to the queue's own keys (a payload or rank lost, a
 * stray payload) and time steps run on the real queue and on the reference model; every reply and
 * the final state must agree. Resolves when they did; rejects with a HarnessFailure (seed and path
 * to replay) when they did not.
 */
export async function checkAgainstModel(options: CheckAgainstModelOptions): Promise<CheckOutcome[]> {
  const { modelCheck } = await needingFastCheck('checkAgainstModel', () => import('../harness/model-check.js'));
  const modes = checkModes(options.modes ?? ['atomic']);
  const runs = positiveCount('runs', options.runs ?? 100);
  optionalInteger('seed', options.seed);
  optionalString('path', options.path);
  optionalString('replayPath', options.replayPath);
  optionalString('namePrefix', options.namePrefix);
  const queue = checkQueueOptions(options.queue ?? {});
  return withStore(options.redis, async (store, isCluster) => {
    const outcomes: CheckOutcome[] = [];
    for (const mode of modes) {
      try {
        await modelCheck({
          mode,
          runs,
          seed: options.seed,
          ...(options.path !== undefined ? { path: options.path } : {}),
          ...(options.replayPath !== undefined ? { replayPath: options.replayPath } : {}),
          namePrefix: options.namePrefix ?? `dynoq-check-${process.pid}-`,
          queueOptions: { hashTag: isCluster, ...queue },
          setup: () => ({ store, run: (p) => p }),
        });
      } catch (err) {
        throw failureOf(options.redis, err, () => {
          if (!(err instanceof ModelCheckFailure)) return new HarnessFailure(`${mode} queue disagrees with the model\n${err instanceof Error ? err.message : String(err)}`, undefined, undefined, undefined, 'run again with the same options');
          const url = typeof options.redis === 'string' ? describeTarget(options.redis) : 'URL';
          return new HarnessFailure(err.message, err.seed, err.path, err.replayPath, `${err.apiReplay()}\n    or: ${err.cliReplay(url)}`, undefined, {
            operation: err.operation,
            ...(err.expected !== undefined ? { expected: err.expected } : {}),
            got: err.got,
          });
        });
      }
      outcomes.push({ mode, runs });
    }
    return outcomes;
  });
}

export interface CompareWithRedisOptions {
  /** Your Redis: a URL, an ioredis client or an IoredisStore. Keys used live under one hash tag per sequence and are deleted. */
  readonly redis: string | Redis | Cluster | IoredisStore;
  /** Command sequences (default 100); each script gets a fifth of that (at least 20). */
  readonly runs?: number;
  readonly seed?: number;
  readonly path?: string;
  /** Also compare every queue script, Lua on Redis against its JS twin (default true). */
  readonly scripts?: boolean;
}

/**
 * The differential check: the simulated keyspace against your Redis on the same random command
 * sequences (and every queue script), replies and final state equal. Use it to see whether the
 * simulator's verdicts carry over to your server version. Rejects with a HarnessFailure on a difference.
 */
export async function compareWithRedis(options: CompareWithRedisOptions): Promise<void> {
  const { differential } = await needingFastCheck('compareWithRedis', () => import('./differential.js'));
  if (options.runs !== undefined) positiveCount('runs', options.runs);
  optionalInteger('seed', options.seed);
  optionalString('path', options.path);
  const target = options.redis;
  const { client, seen } = typeof target === 'string' ? ownClient(target) : { client: target instanceof IoredisStore ? target.client : target, seen: {} };
  try {
    await reachable(target, () => client.ping(), seen);
    await differential({
      client,
      ...(options.runs !== undefined ? { runs: options.runs } : {}),
      ...(options.seed !== undefined ? { seed: options.seed } : {}),
      ...(options.path !== undefined ? { path: options.path } : {}),
      ...(options.scripts !== undefined ? { scripts: options.scripts } : {}),
    });
  } catch (err) {
    if (err instanceof RedisUnavailableError) throw err;
    const { seed, path, report } = fastCheckReplay(err);
    throw failureOf(
      target,
      err,
      () =>
        new HarnessFailure(
          `the simulated keyspace and this Redis differ\n${report}`,
          seed,
          path,
          undefined,
          seed === undefined ? 'run again with the same options' : `compareWithRedis({ ...sameOptions, seed: ${seed}, path: '${path}' })`,
        ),
    );
  } finally {
    if (typeof target === 'string') client.disconnect();
  }
}

export interface SimulateOptions {
  /**
   * What to simulate: topology, your queue options (`queue`: mode, unackTimeoutMs, reaperIntervalMs,
   * serverTime, durable, sharding), network, workload, faults and phases — a scenario file's fields
   * without name, description and expect. Anything left out takes the documented default.
   */
  readonly config?: SimConfigInput;
  /** Seeds to run: a count (seeds `<config.seed>-0`, `-1`, …) or a list (default: the config's seed only). */
  readonly seeds?: number | readonly string[];
  /** Draw this many random faults per seed (in the safety phase) instead of the config's fault list. */
  readonly randomFaults?: number;
  /** Properties that must hold in every run (default: every property). */
  readonly require?: readonly PropertyName[];
  /** Folder for the scenario file of a failing run (default: `<os tmpdir>/dynoq-failures`). */
  readonly failuresDir?: string;
}

/**
 * Runs the simulator on your configuration for each seed and judges every run. Resolves with the
 * results when every required property held; rejects with a HarnessFailure naming the seed and a
 * scenario file that `npx dynoq replay FILE` (or `dynoq sim FILE --html out.html`) replays.
 */
export async function simulate(options: SimulateOptions = {}): Promise<SimResult[]> {
  const base = parseSimConfig(options.config ?? {});
  const asked = options.seeds === undefined ? undefined : checkSeeds(options.seeds);
  const seeds = asked === undefined ? [base.seed] : typeof asked === 'number' ? Array.from({ length: asked }, (_, i) => `${base.seed}-${i}`) : asked;
  const required = checkRequired(options.require ?? PROPERTY_NAMES);
  const randomFaults = options.randomFaults === undefined ? undefined : checkRandomFaults(options.randomFaults);
  optionalString('failuresDir', options.failuresDir);
  // Every seed's configuration is parsed before the first run, so that a bad one refuses them all.
  const configs = seeds.map((seed) => {
    const faults =
      randomFaults !== undefined
        ? generateFaults(new Rng(seed, 'simulate').stream('faults'), { count: randomFaults, safetyMs: base.phases.safetyMs, config: base })
        : base.faults;
    return parseSimConfig({ ...base, seed, faults });
  });
  const results: SimResult[] = [];
  for (const config of configs) {
    const { seed } = config;
    const result = await runSimulation(config);
    results.push(result);
    const broken = required.filter((p) => !result.report.properties[p]);
    if (broken.length > 0) {
      const dir = options.failuresDir ?? join(tmpdir(), 'dynoq-failures');
      mkdirSync(dir, { recursive: true });
      const name = `failure-${seed}`.toLowerCase().replace(/[^a-z0-9-]/g, '-');
      const file = join(dir, `${name}.json`);
      const held = PROPERTY_NAMES.filter((p) => result.report.properties[p]);
      const violated = PROPERTY_NAMES.filter((p) => !result.report.properties[p]);
      const first = result.report.violations.find((v) => v.kind !== 'duplicate');
      writeFileSync(
        file,
        `${JSON.stringify({ name, description: `simulate(): seed ${seed} violated ${broken.join(', ')}`, ...config, keepTrace: false, expect: { hold: held, violate: violated, traceHash: result.traceHash } }, null, 2)}\n`,
      );
      throw new HarnessFailure(
        `simulation seed ${seed} violated ${broken.join(', ')}${first ? `; first: ${first.kind} of ${first.id} at t+${Math.round(first.t - SIM_EPOCH)} ms: ${relativeTimes(first.detail, SIM_EPOCH)}` : ''}`,
        seed,
        undefined,
        undefined,
        `npx dynoq replay ${file}   (or: npx dynoq sim ${file} --html out/failure.html)`,
        file,
      );
    }
  }
  return results;
}
