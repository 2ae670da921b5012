/** A configuration that cannot run as written (a bad field, a fault aimed at nothing, a fault after the safety phase). */
export class SimConfigError extends Error {
  readonly code = 'INVALID_CONFIGURATION';
  constructor(readonly problems: readonly string[]) {
    super(`invalid simulation configuration\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'SimConfigError';
  }
}
