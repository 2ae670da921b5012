/** A configuration the real-twin runner cannot run as it is (each problem says why and what would). */
export class RealTwinError extends Error {
  readonly code = 'REAL_TWIN_UNSUPPORTED' as const;

  constructor(readonly problems: readonly string[]) {
    super(`cannot run this configuration on real processes:\n  - ${problems.join('\n  - ')}`);
    this.name = 'RealTwinError';
  }
}
