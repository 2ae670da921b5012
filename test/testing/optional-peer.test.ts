import { describe, expect, it, vi } from 'vitest';

/** fast-check is an optional peer: without it, the generated checks say how to get it, with a code. */
describe('dynoq/testing without fast-check', () => {
  it.each(['checkAgainstModel', 'compareWithRedis'] as const)('%s rejects with a coded DynoqError naming the install command', async (fn) => {
    vi.resetModules();
    const missing = () => {
      const err = new Error("Cannot find package 'fast-check' imported from /app/node_modules/dynoq/dist/testing.js") as Error & { code: string };
      err.code = 'ERR_MODULE_NOT_FOUND';
      throw err;
    };
    vi.doMock('../../src/testing/model-check/model-check.js', missing);
    vi.doMock('../../src/testing/differential.js', missing);
    try {
      const testing = await import('../../src/public/testing.js');
      const { DynoqError } = await import('../../src/queue/errors.js');
      const err = await testing[fn]({ redis: 'redis://127.0.0.1:1', runs: 1 }).then(
        () => null,
        (e: unknown) => e as Error & { code?: string },
      );
      expect(err).toBeInstanceOf(DynoqError);
      expect(err?.code).toBe('MISSING_PEER_DEPENDENCY');
      expect(err?.message).toBe(`${fn} needs fast-check: npm install --save-dev fast-check`);
    } finally {
      vi.doUnmock('../../src/testing/model-check/model-check.js');
      vi.doUnmock('../../src/testing/differential.js');
      vi.resetModules();
    }
  });
});
