import { createReadStream } from 'node:fs';
import { StringDecoder } from 'node:string_decoder';
import type { LineSource } from '../model/stream-judge.js';

/**
 * A file's lines as a stream, in batches (one per chunk read): each call reads the file again from the
 * top. Only one chunk and the line it ends inside are in memory at a time.
 */
export function fileLines(path: string, chunkBytes = 1 << 20): LineSource {
  return async function* () {
    const decoder = new StringDecoder('utf8');
    let rest = '';
    for await (const chunk of createReadStream(path, { highWaterMark: chunkBytes })) {
      const text = rest + decoder.write(chunk as Buffer);
      const lines = text.split('\n');
      rest = lines.pop()!;
      yield lines;
    }
    const tail = rest + decoder.end();
    if (tail !== '') yield [tail];
  };
}
