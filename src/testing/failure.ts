import type { Violation } from '../model/checker.js';
import { worstFinding, type PropertyName } from '../model/properties.js';
import { relativeTimes } from '../model/relative-times.js';

/**
 * A harness check that failed. The message says how to replay it: fast-check's seed and shrink path
 * for the model-based and differential checks, the seed and a scenario file for a simulation.
 */
export class HarnessFailure extends Error {
  readonly code = 'HARNESS_FAILURE';
  constructor(
    message: string,
    /** fast-check seed (model-based and differential checks) or simulation seed. */
    readonly seed: number | string | undefined,
    /** fast-check's shrink path, to replay the smallest counterexample directly. */
    readonly path: string | undefined,
    /** A command sequence's own replay path (model-based check), passed back with seed and path. */
    readonly replayPath: string | undefined,
    /** What to call (or run) to replay this failure. */
    readonly replay: string,
    /** A scenario file holding the failing simulation (simulate only). */
    readonly scenarioFile?: string,
    /** checkAgainstModel: the first reply that differed (the model's reply is absent when the queue threw). */
    readonly difference?: { readonly operation: string; readonly expected?: string; readonly got: string },
  ) {
    super(`${message}\n\nreplay: ${replay}`);
    this.name = 'HarnessFailure';
  }
}

/** fast-check's report carries `{ seed: N, path: "a:b", endOnFailure: true }`. */
export function fastCheckReplay(err: unknown): { seed?: number; path?: string; replayPath?: string; report: string } {
  const report = err instanceof Error ? err.message : String(err);
  const m = /seed: (-?\d+), path: "([^"]*)"/.exec(report);
  const r = /replayPath="([^"]*)"/.exec(report);
  return { report, ...(m ? { seed: Number(m[1]), path: m[2]! } : {}), ...(r ? { replayPath: r[1]! } : {}) };
}

/** `; worst: KIND of ID at t+N ms: DETAIL` for the worst finding breaking one of `broken` (times from `start`), or ''. */
export function worstClause(violations: readonly Violation[], broken: readonly PropertyName[], start: number): string {
  const worst = worstFinding(violations, broken);
  return worst ? `; worst: ${worst.kind} of ${worst.id} at t+${Math.round(worst.t - start)} ms: ${relativeTimes(worst.detail, start)}` : '';
}
