/**
 * The simulator benchmark's two workloads, as configuration input, and how one is timed: shared by
 * bench/sim.ts (the TypeScript sources) and bench/sim-compiled.ts (the compiled dist/, what the
 * `dynoq` bin runs), so that both measure exactly the same runs.
 */
import type { SimConfigInput } from '../src/sim/run/config.js';
import type { SimResult } from '../src/sim/run/run.js';

/** 3 zones, 6 consumers, up to 10,000 messages, replication lag with spikes, node b crashes at 2 s and restarts at 5 s. */
export function referenceWorkload(messages: number): SimConfigInput {
  return {
    seed: 'bench',
    topology: { kind: 'dynomite', zones: ['a', 'b', 'c'] },
    queue: { mode: 'atomic', unackTimeoutMs: 10_000, reaperIntervalMs: 1_000 },
    network: { lagMeanMs: 10, lagSpikeProbability: 0.01, lagSpikeMs: 300 },
    workload: { messages, producers: 3, rate: 1_000, batch: 10, consumers: 6, consumerBatch: 20, processingMeanMs: 1 },
    faults: [
      { at: 2_000, kind: 'crash-node', zone: 'b', loseUnreplicated: false },
      { at: 5_000, kind: 'restart-node', zone: 'b' },
    ],
    phases: { safetyMs: 10_000, livenessMs: 120_000 },
  };
}

/** An hour of sparse traffic: one message a second, consumers long-polling once a second. */
export const SPARSE_HOUR: SimConfigInput = {
  seed: 'bench-hour',
  topology: { kind: 'dynomite', zones: ['a', 'b', 'c'] },
  queue: { mode: 'atomic', unackTimeoutMs: 30_000, reaperIntervalMs: 5_000 },
  workload: { messages: 3_600, producers: 3, rate: 1 / 3, consumers: 6, consumerBatch: 10, pollWaitMs: 1_000, pollIntervalMs: 1_000, processingMeanMs: 50 },
  phases: { safetyMs: 3_600_000, livenessMs: 60_000 },
};

export interface TimedRun {
  readonly wallMs: number;
  readonly events: number;
  readonly simulatedMs: number;
  readonly acked: number;
  readonly pushed: number;
  readonly traceHash: string;
}

/** Runs one configuration with the given engine (sources or dist) and times it. */
export async function timedRun(
  engine: { parseSimConfig: (input: SimConfigInput) => unknown; runSimulation: (config: never) => Promise<SimResult> },
  input: SimConfigInput,
): Promise<TimedRun> {
  const config = engine.parseSimConfig(input);
  const start = performance.now();
  const r = await engine.runSimulation(config as never);
  const wallMs = performance.now() - start;
  return { wallMs, events: r.kernelEvents, simulatedMs: r.simulatedMs, acked: r.report.acked, pushed: r.report.pushed, traceHash: r.traceHash };
}

/** The median of `n` more runs in this process: the JIT warmed up, as in a table's 200 runs per row. */
export async function steady(n: number, run: () => Promise<TimedRun>): Promise<TimedRun> {
  const runs: TimedRun[] = [];
  for (let i = 0; i < n; i++) runs.push(await run());
  return runs.sort((a, b) => a.wallMs - b.wallMs)[Math.floor(n / 2)]!;
}

/** The lines both benchmarks print for one workload: first run in the process, then warm. */
export function describeRuns(first: TimedRun, warm: TimedRun, target: number): string[] {
  const rate = (r: TimedRun) => Math.round(r.simulatedMs / r.wallMs).toLocaleString('en-US');
  return [
    `  first run   : ${first.wallMs.toFixed(0)} ms wall for ${(first.simulatedMs / 1000).toFixed(1)} simulated s → ${rate(first)} simulated s per wall s (target ≥ ${target.toLocaleString('en-US')})`,
    `  warm        : ${warm.wallMs.toFixed(0)} ms wall (median of 3 more) → ${rate(warm)} simulated s per wall s; ${warm.events} kernel events (${Math.round((warm.events / warm.wallMs) * 1000).toLocaleString('en-US')}/s), acked ${warm.acked} of ${warm.pushed} pushed, trace ${warm.traceHash.slice(0, 12)}`,
  ];
}
