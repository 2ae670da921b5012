/**
 * `dynoq/testing` — dynoq's harness on your own setup, callable from any test runner (vitest, jest,
 * node:test): each function resolves when the check passed and rejects with a `HarnessFailure`
 * whose message says how to replay the failure (fast-check seed and path, or a scenario file).
 *
 * `checkAgainstModel` and `compareWithRedis` generate their inputs with fast-check, an optional
 * peer dependency: `npm install --save-dev fast-check`. `simulate` needs nothing more.
 */
export { checkAgainstModel, compareWithRedis, simulate } from '../testing/harness.js';
export type { CheckAgainstModelOptions, CheckOutcome, CompareWithRedisOptions, RedisTarget, SimulateConfig, SimulateOptions } from '../testing/harness.js';
export type { ModelCheckQueueOptions } from '../testing/model-check/model-check.js';
export { HARNESS_SUPPORT } from '../testing/queue-setup.js';
export type { HarnessQueueOptions } from '../testing/queue-setup.js';
export { HarnessFailure } from '../testing/failure.js';
export { MissingPeerDependencyError } from '../testing/optional-peer.js';
export { RedisUnavailableError } from '../store/redis-unavailable.js';

export { judge } from '../testing/judge.js';
export type { JudgeOptions } from '../testing/judge.js';

export { recordHistory, outcomeOfThrow } from '../testing/recorder.js';
export type { HistorySink, RecordHistoryOptions, RecordedQueue, RunLineSettings } from '../testing/recorder.js';
