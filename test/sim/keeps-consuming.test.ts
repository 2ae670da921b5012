import { afterEach, describe, expect, it, vi } from 'vitest';
import { BaseQueue } from '../../src/queue/base-queue.js';
import type { ConsumeOptions } from '../../src/queue/dyno-queue.js';
import type { PoppedMessage } from '../../src/queue/message.js';
import { parseSimConfig, type SimConfigInput } from '../../src/sim/run/config.js';
import { runSimulation } from '../../src/sim/run/run.js';

// Keeps consuming (liveness): the simulator runs the README's consume() loop, entered once. A
// consume() planted to end at the first store error (what consume() did before it outlived
// faults) is named by the property in a run with a primary crash and failover; the real one holds.

const config = (seed: string): SimConfigInput => ({
  seed,
  topology: { kind: 'primary-replica', zones: ['a', 'b', 'c'], failoverDelayMs: 500 },
  queue: { unackTimeoutMs: 1_000, reaperIntervalMs: 100 },
  workload: { messages: 60, producers: 1, rate: 20, consumers: 3, consumerBatch: 1, processingMeanMs: 20, consumerLoops: ['consume'] },
  faults: [{ at: 800, kind: 'crash-node', zone: 'a', loseUnreplicated: false }],
  phases: { safetyMs: 3_000, livenessMs: 20_000 },
});

/** consume() as it was: a pop that throws ends the loop (the error thrown from it). */
async function* endsAtFirstError(this: BaseQueue, options: ConsumeOptions = {}): AsyncIterableIterator<PoppedMessage> {
  while (!this.isClosed && !options.signal?.aborted) {
    const popped = await this.pop(options.batch ?? 1, { wait: options.wait ?? 1_000, ...(options.signal ? { signal: options.signal } : {}) });
    for (const m of popped) yield m;
    if (Object.hasOwn(popped, 'error')) throw popped.error;
  }
}

describe('keeps consuming: a consumer loop that ends before the run does is named', () => {
  afterEach(() => vi.restoreAllMocks());

  it('the real consume() outlives a primary crash and failover: the property holds and was exercised', async () => {
    for (const seed of ['kc-1', 'kc-2', 'kc-3']) {
      const r = await runSimulation(parseSimConfig(config(seed)));
      expect(r.report.exercised.keepsConsuming, seed).toBe(true);
      expect(r.report.properties.keepsConsuming, seed).toBe(true);
      expect(r.report.properties.atLeastOnce, seed).toBe(true);
    }
  }, 120_000);

  it('a consume() planted to end at the first store error is a consumer-stopped finding naming the consumer', async () => {
    vi.spyOn(BaseQueue.prototype, 'consume').mockImplementation(endsAtFirstError);
    const named = new Set<string>();
    for (const seed of ['kc-1', 'kc-2', 'kc-3']) {
      const r = await runSimulation(parseSimConfig(config(seed)));
      expect(r.report.properties.keepsConsuming, seed).toBe(false);
      for (const v of r.report.violations.filter((x: { kind: string }) => x.kind === 'consumer-stopped')) for (const p of v.processes) named.add(p);
    }
    expect([...named].every((p) => /^consumer-\d+$/.test(p))).toBe(true);
    expect(named.size).toBeGreaterThan(0);
  }, 120_000);
});
