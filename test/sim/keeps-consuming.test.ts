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

/** consume() that stalls for good at the first store error: it reports it, then never yields again and never ends (no stop to see). */
async function* stallsAtFirstError(this: BaseQueue, options: ConsumeOptions = {}): AsyncIterableIterator<PoppedMessage> {
  while (!this.isClosed && !options.signal?.aborted) {
    let popped: PoppedMessage[];
    try {
      popped = await this.pop(options.batch ?? 1, { wait: options.wait ?? 1_000, ...(options.signal ? { signal: options.signal } : {}) });
    } catch (err) {
      // It reports the error, then its back-off never wakes (a timer lost across the reconnect).
      options.onError?.(err, 100);
      await new Promise<never>(() => undefined);
      return;
    }
    for (const m of popped) yield m;
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

  it('a consume() planted to stall at the first store error (it never ends) is named by the recovery bound: messages not consumed after the heal', async () => {
    vi.spyOn(BaseQueue.prototype, 'consume').mockImplementation(stallsAtFirstError);
    for (const seed of ['kc-1', 'kc-2', 'kc-3']) {
      const r = await runSimulation(parseSimConfig(config(seed)));
      // No loop ended: only the bound after the heal can see that nobody consumes.
      expect(r.report.violations.filter((v: { kind: string }) => v.kind === 'consumer-stopped'), seed).toEqual([]);
      expect(r.report.properties.keepsConsuming, seed).toBe(false);
      const notResumed = r.report.violations.filter((v: { kind: string }) => v.kind === 'not-resumed');
      expect(notResumed.length, seed).toBeGreaterThan(0);
      // Each is past the heal + the recovery bound (5 s) + B.
      for (const v of notResumed) expect(v.t, seed).toBeGreaterThan(r.livenessStart + 5_000);
    }
  }, 120_000);

  it('the planted consume() that ends at the first store error is named by the recovery bound too, with the consumers that stopped', async () => {
    vi.spyOn(BaseQueue.prototype, 'consume').mockImplementation(endsAtFirstError);
    const r = await runSimulation(parseSimConfig(config('kc-1')));
    const notResumed = r.report.violations.filter((v: { kind: string }) => v.kind === 'not-resumed');
    expect(notResumed.length).toBeGreaterThan(0);
    expect(notResumed.some((v: { processes: readonly string[] }) => v.processes.some((p) => /^consumer-\d+$/.test(p)))).toBe(true);
  }, 120_000);
});
