import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** A history file of JSON lines in `dir` (the format `dynoq judge` reads); returns its path. */
export function historyFile(dir: string, name: string, lines: readonly unknown[]): string {
  const path = join(dir, name);
  writeFileSync(path, lines.map((l) => JSON.stringify(l)).join('\n'));
  return path;
}

/** One operation of message m1. */
export function op(type: string, process: string, invokedAt: number, completedAt: number, outcome: string, extra: object = {}) {
  return { type, process, id: 'm1', invokedAt, completedAt, outcome, ...extra };
}
