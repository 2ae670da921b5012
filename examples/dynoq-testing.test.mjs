// dynoq's harness from your own test suite (node:test here; vitest or jest work the same way).
// Run: REDIS_URL=redis://127.0.0.1:6379 node --test examples/dynoq-testing.test.mjs
// checkAgainstModel and compareWithRedis need fast-check: npm install --save-dev fast-check
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { checkAgainstModel, compareWithRedis, HarnessFailure, simulate } from 'dynoq/testing';

const redis = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

test('my queue options keep their promises on my Redis (model-based check)', async () => {
  // Your prefix, durable writes, hash tag…; keys under dynoq-check-<pid>-*, cleared afterwards.
  const outcomes = await checkAgainstModel({ redis, runs: 50, queue: { prefix: 'myapp' } });
  assert.deepEqual(outcomes, [{ mode: 'atomic', runs: 50 }]);
});

test('the simulator agrees with my Redis server (differential check)', async () => {
  await compareWithRedis({ redis, runs: 30 });
});

test('my configuration keeps at-least-once through consumer crashes and clock skew (simulation)', async () => {
  const results = await simulate({
    config: {
      seed: 'my-app',
      topology: { kind: 'primary-replica', zones: ['a', 'b'] },
      queue: { mode: 'atomic', unackTimeoutMs: 2_000, reaperIntervalMs: 200, serverTime: true },
      workload: { messages: 50, consumers: 2, crashBeforeAckProbability: 0.05 },
      faults: [{ at: 500, kind: 'clock-skew', target: 'consumer-1', offsetMs: 1_500 }],
      phases: { safetyMs: 3_000, livenessMs: 30_000 },
    },
    seeds: 3,
    require: ['atLeastOnce', 'unackRecovery', 'noDoublePop'],
  });
  assert.equal(results.length, 3);
});

test('a failing simulation says how to replay it', async () => {
  // Client time with a consumer clock running ahead: the reaper takes leases back early.
  const failure = await simulate({
    config: {
      seed: 'skew',
      topology: { kind: 'dynomite', zones: ['a'] },
      queue: { mode: 'atomic', unackTimeoutMs: 2_000, reaperIntervalMs: 100 },
      workload: { messages: 60, producers: 1, rate: 20, consumers: 2, consumerBatch: 1, processingMeanMs: 1_200 },
      faults: [{ at: 0, kind: 'clock-skew', target: 'consumer-1', offsetMs: 1_800 }],
    },
    require: ['noDoublePop'],
  }).then(
    () => null,
    (err) => err,
  );
  assert.ok(failure instanceof HarnessFailure, 'the skewed reaper double-pops');
  assert.match(failure.message, /replay: npx dynoq replay .*\.json/);
});
