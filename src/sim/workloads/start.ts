import type { Rng } from '../kernel/rng.js';
import { CONSUMER_LOOP_DRIVERS } from './consume-loops.js';
import type { WorkloadActor, WorkloadContext } from './context.js';
import { operatorLoop } from './operate.js';
import { producerLoop } from './produce.js';
import { raceLoop, resetRacerLoop } from './race.js';

/** Starts a client process: a simulated one or a real one; consumers run the un-ack reaper. */
export type SpawnActor = (name: string, zone: string, runsReaper: boolean) => WorkloadActor;

/** The workload's clients, once started. */
export interface StartedWorkload {
  /** Producers still pushing. */
  producing(): number;
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
  let producing = w.producers;
  for (let i = 0; i < w.producers; i++) {
    const name = `producer-${i}`;
    void producerLoop(ctx, spawn(name, zones[i % zones.length]!, false), i, rng.stream(name)).finally(() => producing--);
  }
  const consumers: WorkloadActor[] = [];
  const startConsumer = (name: string, i: number) => {
    const loop = ctx.profile.consumerLoops[i % ctx.profile.consumerLoops.length]!;
    const actor = spawn(name, zones[i % zones.length]!, true);
    consumers[i] = actor;
    void CONSUMER_LOOP_DRIVERS[loop](ctx, actor, rng.stream(name));
  };
  for (let i = 0; i < w.consumers; i++) startConsumer(`consumer-${i}`, i);
  if (ctx.profile.operator) void operatorLoop(ctx, spawn('operator', zones[0]!, false), rng.stream('operator'));
  if (ctx.profile.races && zones.length > 1) {
    void raceLoop(ctx, spawn('racer-0', zones[0]!, false), spawn('racer-1', zones[zones.length - 1]!, false), rng.stream('racers'), ctx.profile.races.intervalMs);
    void resetRacerLoop(ctx, spawn('racer-2', zones[1]!, false), rng.stream('racer-2'), ctx.profile.races.intervalMs);
  }
  return {
    producing: () => producing,
    replaceCrashedConsumers() {
      for (const [i, actor] of consumers.entries()) if (actor.crashed) startConsumer(`${actor.name}-restarted`, i);
    },
  };
}
