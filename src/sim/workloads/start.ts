import type { Rng } from '../kernel/rng.js';
import { CONSUMER_LOOP_DRIVERS } from './consume-loops.js';
import type { WorkloadActor, WorkloadContext } from './context.js';
import { operatorLoop } from './operate.js';
import { producerLoop } from './produce.js';
import { raceLoop, resetRacerLoop } from './race.js';

/** The trace event of a driver loop that threw (it ended; the run goes on). */
export const LOOP_THREW = 'loop-threw';

/**
 * A driver loop, started without awaiting it: whatever it throws (an error the queue let out of
 * consume(), say) is traced as LOOP_THREW and ends that loop only, never the run with an unhandled
 * rejection. A consumer's loop that ends so is a consumer that stopped (keeps consuming judges it);
 * any other client's is a finding only if a property sees its effect.
 */
function supervised(ctx: WorkloadContext, actor: WorkloadActor, loop: Promise<void>, consumer: boolean): Promise<void> {
  return loop.catch((err: unknown) => {
    ctx.trace.record({ t: ctx.time.now, actor: actor.name, op: LOOP_THREW, args: String(err) });
    if (consumer && !actor.crashed && !ctx.finished()) ctx.recorder.stopped(actor.name, actor.zone);
  });
}

/** Starts a client process: a simulated one or a real one; consumers run the un-ack reaper. */
export type SpawnActor = (name: string, zone: string, runsReaper: boolean) => WorkloadActor;

/** The workload's clients, once started. */
export interface StartedWorkload {
  /**
   * Producers still pushing and racers still in a turn. The run ends only once none is: a racer's pop
   * cut by its planted connection reset returns at the command timeout (5 s), and until it does the
   * messages it leased are held, which a history that dropped it would show as free and due.
   */
  busy(): number;
  /** The liveness phase: every consumer whose process crashed is replaced by a new one in its zone. */
  replaceCrashedConsumers(): void;
}

/**
 * Starts the configuration's producers, consumers (each running its profile's loop), operator and racers,
 * round-robin over the zones, each with its own random stream of the run's seed. The same wiring
 * drives a simulated run and its real twin.
 */
export function startWorkload(ctx: WorkloadContext, spawn: SpawnActor, rng: Rng): StartedWorkload {
  const zones = ctx.config.topology.zones;
  const w = ctx.config.workload;
  let busy = 0;
  const counted = (loop: Promise<void>) => {
    busy++;
    void loop.finally(() => busy--);
  };
  for (let i = 0; i < w.producers; i++) {
    const name = `producer-${i}`;
    const actor = spawn(name, zones[i % zones.length]!, false);
    counted(supervised(ctx, actor, producerLoop(ctx, actor, i, rng.stream(name)), false));
  }
  const consumers: WorkloadActor[] = [];
  const startConsumer = (name: string, i: number) => {
    const loop = ctx.profile.consumerLoops[i % ctx.profile.consumerLoops.length]!;
    const actor = spawn(name, zones[i % zones.length]!, true);
    consumers[i] = actor;
    void supervised(ctx, actor, CONSUMER_LOOP_DRIVERS[loop](ctx, actor, rng.stream(name)), true);
  };
  for (let i = 0; i < w.consumers; i++) startConsumer(`consumer-${i}`, i);
  if (ctx.profile.operator) {
    const operator = spawn('operator', zones[0]!, false);
    void supervised(ctx, operator, operatorLoop(ctx, operator, rng.stream('operator')), false);
  }
  if (ctx.profile.races && zones.length > 1) {
    const [a, b] = [spawn('racer-0', zones[0]!, false), spawn('racer-1', zones[zones.length - 1]!, false)];
    // (a loop of two racers is traced under the first)
    counted(supervised(ctx, a, raceLoop(ctx, a, b, rng.stream('racers'), ctx.profile.races.intervalMs), false));
    const resetter = spawn('racer-2', zones[1]!, false);
    counted(supervised(ctx, resetter, resetRacerLoop(ctx, resetter, rng.stream('racer-2'), ctx.profile.races.intervalMs), false));
  }
  return {
    busy: () => busy,
    replaceCrashedConsumers() {
      for (const [i, actor] of consumers.entries()) if (actor.crashed) startConsumer(`${actor.name}-restarted`, i);
    },
  };
}
