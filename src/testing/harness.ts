import { mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Cluster, Redis } from 'ioredis';
import type { ModelCheckQueueOptions } from './model-check/model-check.js';
import { ModelCheckFailure } from './model-check/model-check-failure.js';
import type { QueueMode } from '../queue/dyno-queue.js';
import { configForFile, parseSimConfig, type SimConfigInput } from '../sim/run/config.js';
import { ALWAYS_REQUIRED, PROPERTIES_WORST_FIRST, PROPERTY_NAMES, type PropertyName } from '../model/properties.js';
import { generateFaults, type FaultFamily } from '../sim/faults/index.js';
import { Rng } from '../sim/kernel/rng.js';
import { runSimulation, SIM_EPOCH, type SimResult } from '../sim/run/run.js';
import { connect } from '../store/connect.js';
import { IoredisStore } from '../store/ioredis-store.js';
import type { Store } from '../store/store.js';
import { RedisUnavailableError, unavailability } from '../store/redis-unavailable.js';
import { fastCheckReplay, HarnessFailure, worstClause } from './failure.js';
import { needingFastCheck } from './optional-peer.js';
import { parseHarnessQueueOptions, type HarnessQueueOptions } from './queue-setup.js';
import { InvalidArgumentError } from '../queue/errors.js';
import { checkFaultFamilies, checkModes, checkRandomFaults, checkRequired, checkSeeds, optionalInteger, optionalString, positiveCount } from './harness-options.js';

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
   * Your queue's options as you give them to createQueue. Honoured: prefix, hashTag (default true
   * on a Cluster), durable, maxPayloadBytes, reaperBatch, pollInterval, unackTimeout (the model's
   * lease; time steps land on its end), unackInterval (the check runs the reaper's pass at each
   * period, on the queue and the model), serverTime (the scripts' TIME reads the check's clock),
   * settleMs, mode (the default `modes`), name (queue names are `<name>-check-<pid>-<n>`). The
   * connections, clock, timers, token source and the sharding are the check's own: giving one is an
   * InvalidArgumentError naming it.
   */
  readonly queue?: HarnessQueueOptions;
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
  const { modelCheck } = await needingFastCheck('checkAgainstModel', () => import('./model-check/model-check.js'));
  const queue = parseHarnessQueueOptions('checkAgainstModel', options.queue ?? {});
  const modes = checkModes(options.modes ?? [queue.mode ?? 'atomic']);
  if (queue.mode !== undefined && modes.some((m) => m !== queue.mode)) throw new InvalidArgumentError('modes', `${JSON.stringify(modes)} differs from queue.mode ${JSON.stringify(queue.mode)}: give one of them`);
  if (queue.serverTime && modes.includes('legacy')) throw new InvalidArgumentError('queue.serverTime', "is an atomic-mode option: check modes: ['atomic']");
  const lease = queue.unackTimeout ?? 100;
  // The check stops at every reaper period of its longest time step (twice the lease).
  if (queue.unackInterval !== undefined && queue.unackInterval > 0 && (2 * lease) / queue.unackInterval > 10_000) {
    throw new InvalidArgumentError('queue.unackInterval', `${queue.unackInterval} ms is too short beside unackTimeout ${lease} ms for the check (at most 10,000 reaper passes per lease ×2)`);
  }
  const runs = positiveCount('runs', options.runs ?? 100);
  optionalInteger('seed', options.seed);
  optionalString('path', options.path);
  optionalString('replayPath', options.replayPath);
  optionalString('namePrefix', options.namePrefix);
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
          namePrefix: options.namePrefix ?? `${queue.name ?? 'dynoq'}-check-${process.pid}-`,
          queueOptions: { hashTag: isCluster, ...modelCheckOptions(queue) },
          layouts: [{ settleMs: queue.settleMs ?? 0, extraShard: false, serverTime: queue.serverTime ?? false }],
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

type SimTopologyInput = NonNullable<SimConfigInput['topology']>;

/** A simulation configuration whose topology names its kind: simulate() does not guess the store you run. */
export type SimulateConfig = Omit<SimConfigInput, 'topology'> & { readonly topology: SimTopologyInput & { readonly kind: NonNullable<SimTopologyInput['kind']> } };

export interface SimulateOptions {
  /**
   * What to simulate: topology (its `kind` is required), the queue (`queue`: mode, unackTimeoutMs,
   * reaperIntervalMs, serverTime, durable, sharding — or give your createQueue options as the
   * top-level `queue`), network, workload, faults and phases — a scenario file's fields without name,
   * description and expect. Anything else left out takes the documented default.
   */
  readonly config?: SimulateConfig;
  /**
   * Your queue's options as given to createQueue (`unackTimeout`, `unackInterval`, `serverTime`,
   * `durable`, `mode`, `sharding`, `pollInterval`; `name`, `prefix` and `hashTag` only name keys).
   * An option the simulator cannot honour is refused, naming it; one also set in `config.queue` too.
   */
  readonly queue?: HarnessQueueOptions;
  /** Seeds to run: a count (seeds `<config.seed>-0`, `-1`, …) or a list (default: the config's seed only). */
  readonly seeds?: number | readonly string[];
  /** Draw this many random faults per seed (in the safety phase) instead of the config's fault list. */
  readonly randomFaults?: number;
  /**
   * The fault families `randomFaults` draws from, as `dynoq explore --faults` takes them (default:
   * every family the configuration allows); needs `randomFaults`.
   */
  readonly faultFamilies?: readonly FaultFamily[];
  /**
   * Properties that must hold in every run (default: every property). `twinsMatchLua` is always
   * required (with `config.scripts: 'compare'` a twin unlike its Lua fails the run whatever this says).
   */
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
  const asked = options.seeds === undefined ? undefined : checkSeeds(options.seeds);
  const required = [...new Set([...checkRequired(options.require ?? PROPERTY_NAMES), ...ALWAYS_REQUIRED])];
  const randomFaults = options.randomFaults === undefined ? undefined : checkRandomFaults(options.randomFaults);
  const families = options.faultFamilies === undefined ? undefined : checkFaultFamilies(options.faultFamilies);
  if (families !== undefined && randomFaults === undefined) throw new InvalidArgumentError('faultFamilies', 'chooses the families randomFaults draws from: give randomFaults too');
  optionalString('failuresDir', options.failuresDir);
  const input: SimConfigInput = withQueueOptions(options.config ?? {}, options.queue === undefined ? undefined : parseHarnessQueueOptions('simulate', options.queue));
  const base = parseSimConfig(input);
  // Dynomite is the simulator's default topology: a user on plain Redis must not get it unasked.
  if ((input.topology as { kind?: unknown } | undefined)?.kind === undefined) {
    throw new InvalidArgumentError('config.topology.kind', 'is required: "primary-replica" (Redis with Sentinel) or "dynomite"; simulate() does not guess which store you run');
  }
  const seeds = asked === undefined ? [base.seed] : typeof asked === 'number' ? Array.from({ length: asked }, (_, i) => `${base.seed}-${i}`) : asked;
  // Every seed's configuration is parsed before the first run, so that a bad one refuses them all.
  const configs = seeds.map((seed) => {
    const faults =
      randomFaults !== undefined
        ? generateFaults(new Rng(seed, 'simulate').stream('faults'), { count: randomFaults, safetyMs: base.phases.safetyMs, config: base, ...(families ? { families } : {}) })
        : base.faults;
    return parseSimConfig({ ...base, seed, faults });
  });
  const results: SimResult[] = [];
  for (const config of configs) {
    const { seed } = config;
    const result = await runSimulation(config);
    results.push(result);
    const broken = PROPERTIES_WORST_FIRST.filter((p) => required.includes(p) && !result.report.properties[p]);
    if (broken.length > 0) {
      const dir = options.failuresDir ?? join(tmpdir(), 'dynoq-failures');
      mkdirSync(dir, { recursive: true });
      const name = `failure-${seed}`.toLowerCase().replace(/[^a-z0-9-]/g, '-');
      const file = join(dir, `${name}.json`);
      const held = PROPERTY_NAMES.filter((p) => result.report.properties[p]);
      const violated = PROPERTY_NAMES.filter((p) => !result.report.properties[p]);
      writeFileSync(
        file,
        `${JSON.stringify({ name, description: `simulate(): seed ${seed} violated ${broken.join(', ')}`, ...configForFile(config), keepTrace: false, expect: { hold: held, violate: violated, traceHash: result.traceHash } }, null, 2)}\n`,
      );
      throw new HarnessFailure(
        `simulation seed ${seed} violated ${broken.join(', ')}${worstClause(result.report.violations, broken, SIM_EPOCH)}`,
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

/** createQueue's names for the simulator's queue fields. */
const SIM_QUEUE_NAMES = { mode: 'mode', unackTimeout: 'unackTimeoutMs', unackInterval: 'reaperIntervalMs', serverTime: 'serverTime', durable: 'durable', sharding: 'sharding' } as const;

/** The configuration with your createQueue options moved into the simulator's fields (each given once). */
function withQueueOptions(config: SimConfigInput, queue: HarnessQueueOptions | undefined): SimConfigInput {
  if (queue === undefined) return config;
  const simQueue: Record<string, unknown> = { ...config.queue };
  for (const [from, to] of Object.entries(SIM_QUEUE_NAMES)) {
    const value = queue[from as keyof HarnessQueueOptions];
    if (value === undefined) continue;
    if (simQueue[to] !== undefined) throw new InvalidArgumentError(`queue.${from}`, `is also given as config.queue.${to}: give it once`);
    if (from === 'unackInterval' && value === 0) throw new InvalidArgumentError('queue.unackInterval', 'simulate needs a background reaper (unackInterval ≥ 1 ms)');
    if (from === 'sharding' && typeof value !== 'string') throw new InvalidArgumentError('queue.sharding', "simulate takes 'round-robin' or 'hash', not a strategy object");
    simQueue[to] = value;
  }
  let workload = config.workload;
  if (queue.pollInterval !== undefined) {
    if (workload?.pollIntervalMs !== undefined) throw new InvalidArgumentError('queue.pollInterval', 'is also given as config.workload.pollIntervalMs: give it once');
    workload = { ...workload, pollIntervalMs: queue.pollInterval };
  }
  return { ...config, queue: simQueue as SimConfigInput['queue'], ...(workload !== undefined ? { workload } : {}) };
}

/** Your queue options that the model check passes to its queue (mode, name, settle and clock go into the run and the layout). */
function modelCheckOptions(queue: HarnessQueueOptions): ModelCheckQueueOptions {
  const { prefix, hashTag, durable, maxPayloadBytes, reaperBatch, unackTimeout, unackInterval, pollInterval } = queue;
  const picked = { prefix, hashTag, durable, maxPayloadBytes, reaperBatch, unackTimeout, unackInterval, pollInterval };
  return Object.fromEntries(Object.entries(picked).filter(([, v]) => v !== undefined)) as ModelCheckQueueOptions;
}
