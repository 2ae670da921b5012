import { notRegularFile } from '../runtime/regular-file.js';
import { CliError } from './cli-error.js';

/** Refuses (exit 2, one line) an input that is not a regular file, before anything opens it. */
export function regularFileOrThrow(path: string, what = ''): void {
  const why = notRegularFile(path);
  if (why !== undefined) throw new CliError(`cannot read ${what}${path}: ${why}`);
}
