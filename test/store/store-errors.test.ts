import { describe, expect, it } from 'vitest';
import { DynoqError, UnsafeClientError, UnsupportedStoreFeatureError } from '../../src/public/dynoq.js';

/** The store's errors are DynoqErrors like every other error raised on purpose: one `instanceof` catches them all. */
describe('store errors', () => {
  it('UnsafeClientError is a DynoqError, with its name, code and message', () => {
    const err = new UnsafeClientError(['re-sends in-flight commands']);
    expect(err).toBeInstanceOf(DynoqError);
    expect(err).toBeInstanceOf(Error);
    expect([err.name, err.code, err.problems]).toEqual(['UnsafeClientError', 'UNSAFE_CLIENT', ['re-sends in-flight commands']]);
    expect(err.message).toMatch(/^this ioredis client can break the queue's promises:\n {2}- re-sends in-flight commands\n/);
  });

  it('UnsupportedStoreFeatureError is a DynoqError, with its name, code and message', () => {
    const err = new UnsupportedStoreFeatureError('WAIT', 'ioredis-mock');
    expect(err).toBeInstanceOf(DynoqError);
    expect([err.name, err.code, err.message]).toEqual(['UnsupportedStoreFeatureError', 'UNSUPPORTED_STORE_FEATURE', 'ioredis-mock does not support WAIT; use a real Redis server for it']);
  });
});
