import type { Outcome } from '../../model/history.js';
import { METHOD_HISTORY, type HistoryTableOf, type RecordedCall, type RecordedMethod } from '../../model/method-history.js';
import type { BaseQueue } from '../../queue/base-queue.js';
import type { DynoQueue } from '../../queue/dyno-queue.js';
import type { SimSettings } from '../settings/settings.js';
import { outcomeOfError, type HistoryRecorder } from './history-recorder.js';
import type { Trace } from '../kernel/trace.js';
import type { CallProbe } from '../store/call-probe.js';
import type { RunTime } from '../kernel/run-time.js';
import type { ProfileSettings } from '../settings/workload-profile.js';
import type { RaceName } from './race-names.js';

/**
 * A client process as the drivers see it: a simulated one (SimActor) or a real one (src/real).
 * `queue` is the real queue either way; `probe` learns what each recorded call may have written.
 */
export interface WorkloadActor {
  readonly name: string;
  readonly zone: string;
  readonly queue: BaseQueue;
  readonly probe: CallProbe;
  /** The shard the queue picked for each message this client pushed (the latest pick per id). */
  readonly shards: ReadonlyMap<string, string>;
  readonly crashed: boolean;
  /** The process dies (a consumer crashing before its ack): no more callbacks, replies or timers. */
  crash(): void;
  /** Resolves after `ms` of this client's timers (never, once it crashed). */
  sleep(ms: number): Promise<void>;
  /**
   * The server resets this client's connection while the `nth` request the client's recorded calls
   * send on their quorum connection from now is in flight (a CLIENT KILL, a proxy's reset): that request's reply is lost and it
   * fails at the request timeout, having maybe run. 0 disarms a reset that has not struck yet.
   */
  resetConnectionAt(nth: number): void;
}

/** What the workload's drivers share: the world they act in and the run's bookkeeping. */
export interface WorkloadContext {
  readonly config: SimSettings;
  readonly profile: ProfileSettings;
  readonly time: RunTime;
  readonly trace: Trace;
  readonly recorder: HistoryRecorder;
  readonly safetyEnd: number;
  /** Messages pushed ok and not yet acked or removed: the liveness phase runs until it is empty. */
  readonly outstanding: Set<string>;
  /** Ids pushed so far (any outcome), in push order: what side operations pick from. */
  readonly pushedIds: string[];
  /** How often each race of the racers (race.ts) happened in this run. */
  readonly races: Map<RaceName, number>;
  /** The run is over: loops stop. */
  finished(): boolean;
}

export function sleep(actor: WorkloadActor, ms: number): Promise<void> {
  return actor.sleep(ms);
}

/** How a recorded call ended: its outcome and what it returned, or null when its client crashed meanwhile. */
export interface Recorded<T> {
  readonly outcome: Outcome;
  readonly value: T | undefined;
}

/** The table read against the queue the drivers call: a public method without an entry does not compile. */
const HISTORY: HistoryTableOf<DynoQueue> = METHOD_HISTORY;

type Args<M extends RecordedMethod> = Parameters<DynoQueue[M]>;
type Reply<M extends RecordedMethod> = Awaited<ReturnType<DynoQueue[M]>>;

/** A recorded call in flight: ends it with what it returned or threw, and gives its outcome. */
export interface OpenCall<M extends RecordedMethod> {
  returned(value: Reply<M>): Outcome;
  threw(err: unknown): Outcome;
}

/**
 * Begins a call of `method` in the history, as its METHOD_HISTORY entry says (the parts it may do),
 * without making it: a driver that makes the call itself (a step of a consume loop) ends it.
 */
export function beginCall<M extends RecordedMethod>(ctx: WorkloadContext, actor: WorkloadActor, method: M, args: Args<M>): OpenCall<M> {
  const entry = HISTORY[method] as RecordedCall<Args<M>, Reply<M>>;
  const site = { invokedAt: ctx.time.now, leaseMs: ctx.config.queue.unackTimeoutMs, localShard: actor.zone };
  const call = ctx.recorder.begin(actor.name, entry.parts(args, site), actor.probe, (id) => actor.shards.get(id));
  return {
    returned(value) {
      const reply = entry.reply(value, args, site);
      return ctx.recorder.end(call, reply.outcome, reply.result);
    },
    threw: (err) => ctx.recorder.end(call, outcomeOfError(err, actor.probe)),
  };
}

/**
 * The one place a driver makes a recorded call: `actor.queue[method](...args)`, begun in the
 * history, a throw turned into an outcome (docs/CHECKER.md §1.2), and ended with what it returned,
 * each as the method's METHOD_HISTORY entry says. Null when the client crashed during the call (the
 * recorder wrote it as unknown at the crash).
 */
export async function recordedCall<M extends RecordedMethod>(ctx: WorkloadContext, actor: WorkloadActor, method: M, ...args: Args<M>): Promise<Recorded<Reply<M>> | null> {
  const call = beginCall(ctx, actor, method, args);
  let value: Reply<M> | undefined;
  let end: () => Outcome;
  try {
    const reply = await (actor.queue[method] as (...a: Args<M>) => Promise<Reply<M>>).apply(actor.queue, args);
    value = reply;
    end = () => call.returned(reply);
  } catch (err) {
    end = () => call.threw(err);
  }
  if (actor.crashed) return null;
  return { outcome: end(), value };
}
