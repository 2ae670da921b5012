import type { Outcome } from '../../model/history.js';
import type { BaseQueue } from '../../queue/base-queue.js';
import type { SimSettings } from '../settings/settings.js';
import { outcomeOfError, type CallPart, type CallResult, type HistoryRecorder } from './history-recorder.js';
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

/**
 * The one place a driver makes a recorded call: begins it in the history, runs it, turns a throw into
 * an outcome (docs/CHECKER.md §1.2), and ends it with what it returned. Null when the client crashed during the
 * call (the recorder wrote it as unknown at the crash).
 */
export async function recordedCall<T>(
  ctx: WorkloadContext,
  actor: WorkloadActor,
  parts: CallPart | readonly CallPart[],
  run: () => Promise<T>,
  read: (value: T) => { readonly outcome: Outcome; readonly result?: CallResult },
): Promise<Recorded<T> | null> {
  const call = ctx.recorder.begin(actor.name, parts, actor.probe);
  let value: T | undefined;
  let outcome: Outcome;
  let result: CallResult = {};
  try {
    value = await run();
    const r = read(value);
    outcome = r.outcome;
    result = r.result ?? {};
  } catch (err) {
    outcome = outcomeOfError(err, actor.probe);
  }
  if (actor.crashed) return null;
  return { outcome: ctx.recorder.end(call, outcome, result), value };
}

/** A boolean reply as an outcome: true is ok, false a definite refusal. */
export const okIfTrue = (value: boolean): { outcome: Outcome } => ({ outcome: value ? 'ok' : 'fail' });
