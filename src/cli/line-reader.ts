import { isUtf8 } from 'node:buffer';
import { open } from 'node:fs/promises';
import { HistoryFileError } from '../model/history-file.js';
import type { LineBytes, LineSource } from '../model/stream-judge.js';

/** The longest line a history file may have, in bytes (its line break not counted): 1 MiB. A history line is one call; a longer one is a recorder's mistake. */
export const MAX_LINE_BYTES = 1 << 20;

/** The first line of `bytes` (whole lines, each ending '\n') that is not UTF-8, as an error naming it. */
function utf8Error(file: string, bytes: Buffer, firstLine: number): HistoryFileError {
  let from = 0;
  for (let line = firstLine; ; line++) {
    const end = bytes.indexOf(10, from);
    const text = bytes.subarray(from, end);
    if (!isUtf8(text)) return new HistoryFileError(file, line, 'not valid UTF-8: a history is UTF-8 text (decoding it anyway would merge ids that differ only in their invalid bytes)');
    from = end + 1;
  }
}

/** Line breaks in `bytes`. */
function countLines(bytes: Buffer): number {
  let n = 0;
  for (let i = bytes.indexOf(10); i >= 0; i = bytes.indexOf(10, i + 1)) n++;
  return n;
}

/**
 * A file's lines as a stream of byte batches (whole lines, checked to be UTF-8), one per chunk read:
 * each call reads the file again from the top. Memory holds one chunk and the line it ends inside,
 * which is at most MAX_LINE_BYTES: a longer line is refused (HistoryFileError naming it) as soon as
 * that many of its bytes are read, so a file of one endless line costs time and memory linear in the
 * maximum, not in the file. A batch's bytes are valid until the next batch is asked for (the chunk is
 * read into again). `onRead` is told each chunk's size (tests count the bytes read).
 */
export function fileLines(path: string, chunkBytes = 1 << 20, onRead?: (bytes: number) => void): LineSource {
  const size = Math.max(1, Math.min(chunkBytes, MAX_LINE_BYTES));
  const tooLong = (line: number) => new HistoryFileError(path, line, `longer than ${MAX_LINE_BYTES} bytes (the longest line a history may have)`);
  return async function* (): AsyncGenerator<LineBytes> {
    const handle = await open(path, 'r');
    try {
      // The unfinished line: the pieces read so far, joined once it ends.
      let pieces: Buffer[] = [];
      let pending = 0;
      let line = 1;
      // One chunk, read into again and again (a fresh one per read costs the kernel its pages every time):
      // what must outlive a read (the unfinished line) is copied out of it.
      const chunk = Buffer.allocUnsafe(size);
      for (;;) {
        const { bytesRead } = await handle.read(chunk, 0, size, null);
        if (bytesRead === 0) break;
        onRead?.(bytesRead);
        const data = chunk.subarray(0, bytesRead);
        const lastBreak = data.lastIndexOf(10);
        if (lastBreak < 0) {
          pieces.push(Buffer.from(data));
          pending += bytesRead;
          if (pending > MAX_LINE_BYTES) throw tooLong(line);
          continue;
        }
        // The unfinished line ends here: a line of a chunk is never longer than the chunk, so only it can be too long.
        if (pending + data.indexOf(10) > MAX_LINE_BYTES) throw tooLong(line);
        let rest = data.subarray(0, lastBreak + 1);
        if (pending > 0) {
          // The line the last chunk cut, joined alone (not the whole chunk with it) and yielded first.
          const firstBreak = data.indexOf(10);
          const joined = Buffer.concat([...pieces, data.subarray(0, firstBreak + 1)]);
          if (!isUtf8(joined)) throw utf8Error(path, joined, line);
          yield { bytes: joined, count: 1 };
          line++;
          rest = data.subarray(firstBreak + 1, lastBreak + 1);
        }
        if (rest.length > 0) {
          if (!isUtf8(rest)) throw utf8Error(path, rest, line);
          const count = countLines(rest);
          yield { bytes: rest, count };
          line += count;
        }
        pieces = lastBreak + 1 < bytesRead ? [Buffer.from(data.subarray(lastBreak + 1))] : [];
        pending = bytesRead - lastBreak - 1;
      }
      if (pending > 0) {
        const tail = Buffer.concat([...pieces, Buffer.from('\n')]);
        if (!isUtf8(tail)) throw utf8Error(path, tail, line);
        yield { bytes: tail, count: 1 };
      }
    } finally {
      await handle.close();
    }
  };
}
