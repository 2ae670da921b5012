import { issueLines, type IssueLike } from '../runtime/zod-issues.js';
import { CliError } from './cli-error.js';

/** The dynoq command's exit codes (README, "Exit codes"). */
export const EXIT = {
  /** Every property held; a replay matched; a check agreed. */
  ok: 0,
  /** A property was violated, a replay differed, or the queue disagreed with the model. */
  violated: 1,
  /** Bad input: a usage error, an invalid or missing file, a bad URL, an unreachable Redis, a real twin that cannot run (a fault with no real means, no redis-server or Dynomite build). */
  usage: 2,
  /** dynoq itself failed (a bug): the stack trace is printed. */
  internal: 3,
  /**
   * Nothing violated, but not enough checked to pass (Jepsen's "unknown"): `dynoq judge` when too much
   * of the history rests on unknown operations; `dynoq explore --runs N --time T` when the time budget
   * ended it before every seed was explored. Its own code, not 0 behind a flag: a CI job must not pass
   * silently on a check that proves nothing, and can accept it explicitly (`|| [ $? -eq 4 ]`).
   */
  unknown: 4,
} as const;

const FILE_ERRORS = new Set(['ENOENT', 'EACCES', 'EISDIR', 'ENOTDIR', 'EROFS', 'EEXIST', 'EPERM']);

/** Errors named by their class (loaded lazily with their commands, so matched by name and code). */
const INPUT_ERRORS = new Set(['RealTwinError', 'RealProcessError', 'ScenarioError', 'TraceFileError', 'HistoryFileError', 'SimConfigError', 'CliError', 'InvalidArgumentError', 'InvalidMessageError', 'MissingPeerDependencyError']);

/** One line (or a short list) for an input error, a stack for anything else. */
export function describeError(err: unknown): { message: string; code: number } {
  if (err instanceof CliError || (err instanceof Error && INPUT_ERRORS.has(err.name))) {
    return { message: `dynoq: ${err.message}`, code: EXIT.usage };
  }
  if (err instanceof Error && err.name === 'ZodError' && 'issues' in err) {
    const issues = (err as { issues: IssueLike[] }).issues;
    return {
      message: `dynoq: invalid configuration\n${issueLines(issues).map((l) => `  - ${l}`).join('\n')}`,
      code: EXIT.usage,
    };
  }
  const code = (err as { code?: unknown } | null)?.code;
  if (err instanceof Error && typeof code === 'string' && FILE_ERRORS.has(code)) {
    return { message: `dynoq: ${err.message}`, code: EXIT.usage };
  }
  return { message: `dynoq: internal error (please report it)\n${err instanceof Error ? (err.stack ?? err.message) : String(err)}`, code: EXIT.internal };
}
