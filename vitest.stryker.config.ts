import { defineConfig } from 'vitest/config';

// The suites the mutation run (npx stryker run) uses: the ones that judge src/queue and src/model
// in process (ioredis-mock and the simulator; DYNOQ_BACKENDS restricts the backends).
process.env.DYNOQ_BACKENDS = 'ioredis-mock';

export default defineConfig({
  test: {
    include: [
      'test/queue-behaviour.test.ts',
      'properties/model-based.test.ts',
      'properties/checker.test.ts',
      'properties/interleavings.test.ts',
      'test/sim/faults.test.ts',
      'test/queue/validation.test.ts',
      'test/queue/api-edges.test.ts',
    ],
    testTimeout: 60_000,
    pool: 'forks',
  },
});
