import fc from 'fast-check';
import { AtomicModel } from '../../model/reference/atomic-model.js';
import { LegacyModel } from '../../model/reference/legacy-model.js';
import type { QueueModel } from '../../model/reference/queue-model.js';
import type { AtomicQueue } from '../../queue/atomic-queue.js';
import type { BaseQueue } from '../../queue/base-queue.js';
import { createQueue } from '../../queue/create-queue.js';
import type { QueueMode } from '../../queue/dyno-queue.js';
import { QueueKeys } from '../../queue/keys.js';
import { parseQueueOptions, type QueueOptionsInput } from '../../queue/options.js';
import type { ScriptDef } from '../../redis/script.js';
import type { Store } from '../../store/store.js';
import { FakeTime } from '../manual-time.js';
import { relativeTimes } from '../../model/relative-times.js';
import { ModelCheckFailure } from './model-check-failure.js';
import type { Layout } from './layout.js';

export type { Layout } from './layout.js';

export { ModelCheckFailure };
import { agree, commandsArb, IDS, LOCAL_SHARD, ModelDisagreement, sortedMessages, type Real } from './model-ops.js';

/**
 * The model-based check (docs/TESTING.md): fast-check command sequences (src/testing/model-check/model-ops.ts) run
 * against a real queue on some store and against the reference model; every reply and the final
 * state must agree. Shared by the property suite, the Lua mutation tester and `dynoq check --redis URL`.
 */

const UNACK = 100;
/** The shard listed before the queue's own in the layouts with an extra shard; nothing is pushed to it. */
const EXTRA_SHARD = 'x';

const ONE_SHARD: Layout = { settleMs: 0, extraShard: false, serverTime: false };

/**
 * Every layout of a mode: settle 0 or 5 ms (atomic), with or without an extra shard, and on the
 * client's or (atomic, when the setup drives a server clock) the server's clock. ONE_SHARD first,
 * so that a failing sequence shrinks towards it.
 */
export function layoutsOf(mode: QueueMode, withServerClock: boolean): Layout[] {
  const settles = mode === 'atomic' ? [0, 5] : [0];
  const serverTimes = mode === 'atomic' && withServerClock ? [false, true] : [false];
  return serverTimes.flatMap((serverTime) => settles.flatMap((settleMs) => [false, true].map((extraShard) => ({ settleMs, extraShard, serverTime }))));
}

/** A server clock the check can read and drive (the simulated node's): the model follows it. */
interface ServerClock {
  now(): number;
  advance(ms: number): Promise<void>;
}

export interface Setup {
  readonly store: Store;
  readonly run: Real['run'];
  /** Needed by layouts with server time. */
  readonly serverClock?: ServerClock;
}

async function finalStateAgrees(model: QueueModel, real: Real, layout: Layout): Promise<void> {
  const sizes = await real.run(real.queue.shardSizes());
  agree(sizes[LOCAL_SHARD], { size: model.size(), uacked: model.unacked() }, 'final shardSizes');
  if (layout.extraShard) agree(sizes[EXTRA_SHARD], { size: 0, uacked: 0 }, 'final shardSizes of the extra shard');
  for (const i of IDS) agree((await real.run(real.queue.get(i)))?.payload ?? null, model.get(i)?.payload ?? null, `final get(${i})`);
  agree(sortedMessages(await real.run(real.queue.getAllMessages())), sortedMessages(model.messages()), 'final getAllMessages');
  if (model instanceof AtomicModel) {
    // what is still waiting for promotion
    agree(await real.run((real.queue as AtomicQueue).promoteDue()), model.promoteDue(), 'final promoteDue');
    // Nothing left behind: a rank (META) and a lease token (LEASE) only for ids the model still holds.
    const ranked = new Set(model.rankedIds());
    const leased = new Set(model.leasedIds());
    for (const i of IDS) {
      agree((await real.run(real.store.hget(real.keys.meta, i))) !== null, ranked.has(i), `final rank of ${i} present`);
      agree((await real.run(real.store.hget(real.keys.leases, i))) !== null, leased.has(i), `final lease token of ${i} present`);
    }
  }
}

function modelFor(mode: QueueMode, now: number, layout: Layout, lease: number): QueueModel {
  const m = mode === 'atomic' ? new AtomicModel(lease, layout.settleMs) : new LegacyModel(lease);
  m.now = now;
  return m;
}

/**
 * Queue options a user may set for the check. The rest are the check's own: the model is one shard
 * on a hand-driven clock with a 100 ms lease and no background reaper.
 */
export type ModelCheckQueueOptions = Pick<QueueOptionsInput, 'prefix' | 'hashTag' | 'durable' | 'maxPayloadBytes' | 'reaperBatch' | 'unackTimeout' | 'unackInterval' | 'pollInterval'>;

/**
 * The store as the queue's scripts see it when they read the server's clock but no server clock can
 * be driven (a real Redis): each script's `redis.call('TIME')` reads `time` instead, passed in ARGV[1]
 * (unused under server time). Everything else of the server-time path runs as written.
 */
function serverTimeFrom(store: Store, time: FakeTime): Store {
  const rewritten = new WeakMap<ScriptDef, ScriptDef>();
  const redirect = (script: ScriptDef, args: readonly string[]): [ScriptDef, string[]] => {
    if (args[1] !== '1' || !script.lua.includes("redis.call('TIME')")) return [script, [...args]];
    let def = rewritten.get(script);
    if (!def) {
      def = { ...script, lua: script.lua.replaceAll("redis.call('TIME')", () => "{string.match(ARGV[1], '^(%d+):(%d+)$')}") };
      rewritten.set(script, def);
    }
    const ms = time.now();
    return [def, [`${Math.floor(ms / 1000)}:${(ms % 1000) * 1000}`, ...args.slice(1)]];
  };
  return new Proxy(store, {
    get(target, prop) {
      const value: unknown = Reflect.get(target, prop);
      if (typeof value !== 'function') return value;
      if (prop === 'runScript' || prop === 'runScriptThenWait') {
        return (script: ScriptDef, keys: readonly string[], args: readonly string[], ...rest: unknown[]) => {
          const [def, argv] = redirect(script, args);
          return (value as (...a: unknown[]) => unknown).call(target, def, keys, argv, ...rest);
        };
      }
      return value.bind(target);
    },
  });
}

/**
 * The store as a second connection whose next ZRANGEBYSCORE reply is followed by `slot.hook`, if
 * set (once): given to a legacy queue as its non-quorum connection, the hook acts right after the
 * prefetch read of a pop (racedPop arms it just before that pop, which reads nothing else before).
 */
function afterNextRangeRead(store: Store, slot: Real['afterPrefetch']): Store {
  return new Proxy(store, {
    get(target, prop) {
      const value: unknown = Reflect.get(target, prop);
      if (prop !== 'zrangeByScore' || typeof value !== 'function') return typeof value === 'function' ? value.bind(target) : value;
      return async (...args: unknown[]) => {
        const reply: unknown = await value.apply(target, args);
        const hook = slot.hook;
        slot.hook = undefined;
        await hook?.();
        return reply;
      };
    },
  });
}

function makeQueue(
  mode: QueueMode,
  store: Store,
  time: FakeTime,
  name: string,
  extra: ModelCheckQueueOptions,
  layout: Layout,
  afterPrefetch: Real['afterPrefetch'],
): { queue: BaseQueue; keys: QueueKeys } {
  // Lease tokens drawn as the model draws them: one per pop call, counting from 1.
  let tokens = 0;
  const randomId = () => String(++tokens);
  const { unackTimeout = UNACK, unackInterval: _reaperByTheCheck, ...rest } = extra;
  const input: QueueOptionsInput = {
    ...rest,
    name,
    mode,
    quorum: store,
    clock: time,
    timers: time,
    // The check runs the reaper's pass itself at each period (see Real.reaper): no background timer.
    unackInterval: 0,
    unackTimeout,
    randomId,
    ...(layout.extraShard
      ? { shards: { allShards: [EXTRA_SHARD, LOCAL_SHARD], currentShard: LOCAL_SHARD }, sharding: { name: 'local', nextShard: () => LOCAL_SHARD } }
      : {}),
    ...(mode === 'atomic' ? { settleMs: layout.settleMs, serverTime: layout.serverTime } : { nonQuorum: afterNextRangeRead(store, afterPrefetch) }),
  };
  const options = parseQueueOptions(input);
  return { queue: createQueue(input), keys: new QueueKeys(options.prefix, options.name, options.hashTag) };
}

interface ModelCheckOptions {
  readonly mode: QueueMode;
  /** A fresh store (and how to await calls on it) per generated sequence. */
  readonly setup: (name: string, layout: Layout) => Setup | Promise<Setup>;
  readonly runs: number;
  readonly seed?: number;
  /** fast-check's shrink path (with seed): replays the smallest counterexample directly. */
  readonly path?: string;
  /** The counterexample's `replayPath` (printed after it), needed with seed and path to replay a command sequence. */
  readonly replayPath?: string;
  /** Queue names are `${namePrefix}${n}` (default `mb`); each sequence clears its keys at the end. */
  readonly namePrefix?: string;
  /** Options of the queue under test (prefix, hash tag, durable writes…). */
  readonly queueOptions?: ModelCheckQueueOptions;
  /** The layouts a sequence draws from (default: ONE_SHARD only). */
  readonly layouts?: readonly Layout[];
}

/** The error of a failing sequence, with the commands that ran and the layout (fast-check keeps the last failing run's). */
class SequenceFailure extends Error {
  constructor(
    readonly error: unknown,
    readonly ran: readonly string[],
    readonly layout: Layout,
    readonly start: number,
  ) {
    super(error instanceof Error ? error.message : String(error), { cause: error });
    this.name = 'SequenceFailure';
  }
}

function explain<C>(mode: QueueMode, details: fc.RunDetails<[Layout, C]>): Error {
  const failure = details.errorInstance;
  if (!(failure instanceof SequenceFailure) || details.counterexample === null) {
    return failure instanceof Error ? failure : new Error(`model check failed: ${String(failure)}`);
  }
  const replayPath = /replayPath="([^"]*)"/.exec(String(details.counterexample[1]))?.[1];
  const rel = (json: string) => relativeTimes(json, failure.start);
  const err = failure.error;
  const [operation, expected, got] =
    err instanceof ModelDisagreement
      ? [err.operation, rel(err.expected), rel(err.got)]
      : [failure.ran.length > 0 ? failure.ran[failure.ran.length - 1]!.replace(/^t\+\d+ ms /, '') : 'the final state check', undefined, rel(err instanceof Error ? `${err.name}: ${err.message}` : String(err))];
  return new ModelCheckFailure(mode, details.seed, details.counterexamplePath ?? '', replayPath, operation, expected, got, failure.ran, failure.layout, err);
}

/**
 * Runs the model-based property. On a mismatch throws a ModelCheckFailure (the first differing
 * reply, the commands, and seed, path and replayPath to replay it); errors that are not about the
 * queue (a closed connection) stay reachable as its cause.
 */
export async function modelCheck({ mode, setup, runs, seed, path, replayPath, namePrefix = 'mb', queueOptions = {}, layouts = [ONE_SHARD] }: ModelCheckOptions): Promise<void> {
  let n = 0;
  const details = await fc.check(
    fc.asyncProperty(fc.constantFrom(...layouts), commandsArb(mode, replayPath, queueOptions.unackTimeout ?? UNACK), async (layout, cmds) => {
      const name = `${namePrefix}${++n}`;
      const { store, run, serverClock } = await setup(name, layout);
      const clock = layout.serverTime ? serverClock : undefined;
      const time = new FakeTime(clock?.now());
      const start = time.now();
      const afterPrefetch: Real['afterPrefetch'] = {};
      // Server time with no server clock to drive (a real Redis): the scripts read the check's clock.
      const scriptsSee = layout.serverTime && !serverClock ? serverTimeFrom(store, time) : store;
      const { queue, keys } = makeQueue(mode, scriptsSee, time, name, queueOptions, layout, afterPrefetch);
      const advance = async (ms: number) => {
        await time.advance(ms);
        await clock?.advance(ms);
      };
      const ran: string[] = [];
      const interval = queueOptions.unackInterval ?? 0;
      const reaper = interval > 0 ? { interval, next: interval } : undefined;
      const real: Real = { queue, store, keys, run, advance, tokens: new Map(), afterPrefetch, ran, elapsed: () => time.now() - start, reaper };
      const model = modelFor(mode, time.now(), layout, queueOptions.unackTimeout ?? UNACK);
      try {
        await fc.asyncModelRun(() => ({ model, real }), cmds);
        await finalStateAgrees(model, real, layout);
      } catch (err) {
        throw new SequenceFailure(err, ran, layout, start);
      } finally {
        await run(queue.clear());
        await queue.close();
      }
    }),
    { numRuns: runs, ...(seed === undefined ? {} : { seed }), ...(path === undefined ? {} : { path }) },
  );
  if (details.failed) throw explain(mode, details);
}
