/** A store that cannot do what was asked (for example WAIT on ioredis-mock). */
export class UnsupportedStoreFeatureError extends Error {
  readonly code = 'UNSUPPORTED_STORE_FEATURE';
  constructor(
    readonly feature: string,
    readonly store: string,
  ) {
    super(`${store} does not support ${feature}; use a real Redis server for it`);
    this.name = 'UnsupportedStoreFeatureError';
  }
}
