import { createHash } from 'node:crypto';
import { closeSync, openSync, readSync } from 'node:fs';

/** The file's SHA-256, read a chunk at a time (a history can be larger than memory allows at once). */
export function sha256File(path: string): string {
  const hash = createHash('sha256');
  const chunk = Buffer.allocUnsafe(1 << 20);
  const fd = openSync(path, 'r');
  try {
    for (let n = readSync(fd, chunk); n > 0; n = readSync(fd, chunk)) hash.update(chunk.subarray(0, n));
  } finally {
    closeSync(fd);
  }
  return hash.digest('hex');
}
