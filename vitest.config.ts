import { defineConfig } from 'vitest/config';

// DYNOQ_RESULTS=path makes vitest also write its JSON results there (.ci/run reads the counts).
const resultsFile = process.env.DYNOQ_RESULTS;

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'properties/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 30_000,
    pool: 'forks',
    reporters: resultsFile ? ['default', 'json'] : ['default'],
    outputFile: resultsFile ? { json: resultsFile } : undefined,
  },
});
