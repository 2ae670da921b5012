import { statSync } from 'node:fs';

/**
 * Why `path` cannot be read as an input file, or undefined when it is a regular file (or does not
 * exist: the reader then says so). A FIFO, a device (/dev/zero) or a folder is refused before it is
 * opened: opening a FIFO waits for a writer, and reading a device never ends.
 */
export function notRegularFile(path: string): string | undefined {
  let stat;
  try {
    stat = statSync(path);
  } catch {
    return undefined;
  }
  if (stat.isFile()) return undefined;
  const what = stat.isDirectory() ? 'a folder' : stat.isFIFO() ? 'a FIFO' : stat.isCharacterDevice() || stat.isBlockDevice() ? 'a device' : stat.isSocket() ? 'a socket' : 'not a file';
  return `not a regular file (${what}); dynoq reads inputs from regular files only (no standard input)`;
}
