import type { HistoryEvent } from '../model/history.js';
import { checkHistory, type CheckReport } from '../model/checker.js';
import type { MessageInput } from '../queue/message.js';
import { SimActor } from './actor.js';
import type { SimConfig } from './config.js';
import { applyFault, type FaultWorld } from './faults.js';
import { Kernel } from './kernel.js';
import { Network } from './network.js';
import { Rng } from './rng.js';
import { DynomiteTopology } from './topology/dynomite.js';
import { PrimaryReplicaTopology } from './topology/primary-replica.js';
import type { Topology } from './topology/topology.js';
import { Trace } from './trace.js';

/** Virtual time starts at a realistic epoch so that scores look like production ones. */
export const SIM_EPOCH = 1_700_000_000_000;

export interface SimResult {
  readonly config: SimConfig;
  readonly report: CheckReport;
  readonly history: readonly HistoryEvent[];
  readonly traceHash: string;
  readonly traceText: string | null;
  readonly traceEvents: number;
  readonly kernelEvents: number;
  /** Simulated milliseconds the run covered. */
  readonly simulatedMs: number;
  readonly livenessStart: number;
}

function buildTopology(config: SimConfig, kernel: Kernel, network: Network): Topology {
  const t = config.topology;
  return t.kind === 'dynomite'
    ? new DynomiteTopology(kernel, network, t.zones)
    : new PrimaryReplicaTopology(kernel, network, t.zones, t.failoverDelayMs);
}

/**
 * One deterministic run: producers, consumers (each running the real queue, reaper included) and
 * a fault schedule on a simulated topology; a safety phase with faults, then a liveness phase with
 * everything healed until every acknowledged push is acked or the liveness bound passes.
 */
export async function runSimulation(config: SimConfig): Promise<SimResult> {
  const kernel = new Kernel(SIM_EPOCH);
  const rng = new Rng(config.seed);
  const trace = new Trace(config.keepTrace);
  const network = new Network(
    kernel,
    rng.stream('network'),
    { baseMs: config.network.latencyBaseMs, jitterMs: config.network.latencyJitterMs },
    { meanMs: config.network.lagMeanMs, spikeProbability: config.network.lagSpikeProbability, spikeMs: config.network.lagSpikeMs },
  );
  const topology = buildTopology(config, kernel, network);
  const zones = config.topology.zones;
  const w = config.workload;
  const history: HistoryEvent[] = [];
  // Every history event goes into the trace too, so that a trace file alone can be judged and drawn.
  const observe = (e: HistoryEvent) => {
    history.push(e);
    trace.record({ t: e.t, actor: e.actor, op: 'history', args: e });
  };
  const outstanding = new Set<string>();
  let producing = w.producers;
  const actors = new Map<string, SimActor>();
  const spawn = (name: string, zone: string, reaper: boolean) => {
    const actor = new SimActor(name, zone, kernel, topology, trace, config, reaper);
    actors.set(name, actor);
    return actor;
  };
  trace.record({ t: kernel.now, actor: 'sim', op: 'start', args: { seed: config.seed, config: { ...config, keepTrace: false } } });

  // Producers: message i goes to producer i mod P.
  const producerLoop = async (actor: SimActor, index: number, prng: Rng) => {
    const produce = produceFor(actor, prng);
    const mine: number[] = [];
    for (let i = index; i < w.messages; i += w.producers) mine.push(i);
    const interval = (1_000 / w.rate) * w.batch;
    try {
      await produce(mine, interval);
    } finally {
      producing--;
    }
  };
  const produceFor = (actor: SimActor, prng: Rng) => async (mine: number[], interval: number) => {
    for (let start = 0; start < mine.length && !actor.crashed; start += w.batch) {
      await sleep(actor, interval);
      if (kernel.now >= safetyEnd) break;
      const batch: (MessageInput & { timeout: number })[] = mine.slice(start, start + w.batch).map((i) => ({
        id: `m${i}`,
        payload: `payload-${i}`,
        timeout: w.maxDelayMs > 0 ? prng.int(0, w.maxDelayMs) : 0,
        priority: w.maxPriority > 0 ? prng.int(0, w.maxPriority) : 0,
      }));
      const invokedAt = kernel.now;
      let ok = true;
      try {
        await actor.queue.push(batch);
      } catch {
        ok = false;
      }
      if (actor.crashed) return;
      for (const m of batch) {
        observe({ type: 'push', invokedAt, t: kernel.now, actor: actor.name, id: m.id, delayMs: m.timeout, ok });
        if (ok) outstanding.add(m.id);
      }
    }
  };

  const consumerLoop = async (actor: SimActor, crng: Rng) => {
    const lease = config.queue.unackTimeoutMs;
    while (!actor.crashed && !finished) {
      const invokedAt = kernel.now;
      let got;
      try {
        got = await actor.queue.pop(w.consumerBatch, { wait: w.pollWaitMs });
      } catch {
        await sleep(actor, w.pollWaitMs);
        continue;
      }
      if (actor.crashed) return;
      for (const m of got) observe({ type: 'deliver', invokedAt, t: kernel.now, actor: actor.name, id: m.id, leaseUntil: invokedAt + lease });
      for (const m of got) {
        await sleep(actor, crng.exponential(w.processingMeanMs));
        if (crng.chance(w.crashBeforeAckProbability) && kernel.now < safetyEnd) {
          trace.record({ t: kernel.now, actor: actor.name, op: 'crash-before-ack', args: m.id });
          actor.crash();
          return;
        }
        if (crng.chance(w.lateAckProbability)) await sleep(actor, w.lateAckMs);
        const ackAt = kernel.now;
        let ok = false;
        try {
          ok = await actor.queue.ack(m.id, m.token);
        } catch {
          ok = false;
        }
        if (actor.crashed) return;
        observe({ type: 'ack', invokedAt: ackAt, t: kernel.now, actor: actor.name, id: m.id, ok });
        if (ok) outstanding.delete(m.id);
      }
    }
  };

  let finished = false;
  const safetyEnd = kernel.now + config.phases.safetyMs;
  for (let i = 0; i < w.producers; i++) {
    void producerLoop(spawn(`producer-${i}`, zones[i % zones.length]!, false), i, rng.stream(`producer-${i}`));
  }
  const consumerNames: string[] = [];
  const startConsumer = (name: string, zone: string) => {
    void consumerLoop(spawn(name, zone, true), rng.stream(name));
  };
  for (let i = 0; i < w.consumers; i++) {
    consumerNames.push(`consumer-${i}`);
    startConsumer(`consumer-${i}`, zones[i % zones.length]!);
  }

  const world: FaultWorld = { kernel, network, topology, trace, actor: (n) => actors.get(n) };
  for (const fault of config.faults) kernel.at(SIM_EPOCH + fault.at, () => applyFault(world, fault));

  await kernel.runUntil(safetyEnd);

  // Liveness: heal every fault, resync clocks, replace crashed consumers, keep consuming.
  const livenessStart = kernel.now;
  network.healAll();
  network.extraLagMs = 0;
  topology.recoverAll();
  for (const n of topology.nodes) n.clock.offset = 0;
  for (const a of actors.values()) if (!a.crashed) a.heal();
  for (const [i, name] of consumerNames.entries()) {
    if (actors.get(name)?.crashed) {
      const replacement = `${name}-restarted`;
      consumerNames[i] = replacement;
      startConsumer(replacement, zones[i % zones.length]!);
    }
  }
  trace.record({ t: kernel.now, actor: 'sim', op: 'liveness', args: { livenessStart } });
  const end = livenessStart + config.phases.livenessMs;
  await kernel.runUntil(end, () => producing <= 0 && outstanding.size === 0);
  finished = true;
  const endedAt = kernel.now;
  trace.record({ t: endedAt, actor: 'sim', op: 'end', args: { outstanding: outstanding.size } });
  for (const a of actors.values()) a.crash();

  const report = checkHistory(
    history,
    { livenessStart, end: endedAt },
    { reaperIntervalMs: config.queue.reaperIntervalMs, recoveryBoundMs: config.checker.recoveryBoundMs },
  );
  return {
    config,
    report,
    history,
    traceHash: trace.digest(),
    traceText: trace.text(),
    traceEvents: trace.events,
    kernelEvents: kernel.eventsExecuted,
    simulatedMs: endedAt - SIM_EPOCH,
    livenessStart,
  };
}

function sleep(actor: SimActor, ms: number): Promise<void> {
  return new Promise((resolve) => actor.timers.setTimeout(resolve, ms));
}
