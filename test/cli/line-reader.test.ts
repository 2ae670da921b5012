import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { fileLines } from '../../src/cli/line-reader.js';
import { HistoryFileError } from '../../src/model/history-file.js';
import { judgeHistory } from '../../src/model/judge.js';
import { judgeStream } from '../../src/model/stream-judge.js';

describe('dynoq judge reads a file in chunks', () => {
  const dir = mkdtempSync(join(tmpdir(), 'dynoq-lines-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('whatever the chunk size: characters split across chunks, CRLF, blank lines, no final newline', async () => {
    const text = [
      '{"type":"push","process":"p","id":"m€ü","invokedAt":0,"completedAt":1,"outcome":"ok"}',
      '',
      '{"type":"deliver","process":"c","id":"m€ü","invokedAt":2,"completedAt":3,"leaseUntil":9}',
      '{"type":"ack","process":"c","id":"m€ü","invokedAt":4,"completedAt":5,"outcome":"ok"}',
    ].join('\r\n');
    const path = join(dir, 'h.jsonl');
    writeFileSync(path, text);
    const whole = judgeHistory(text, {}, 'h').report;
    expect(whole.acked).toBe(1);
    for (const size of [1, 2, 3, 7, 64, 1 << 20]) {
      const lines: string[] = [];
      for await (const batch of fileLines(path, size)()) {
        if (!('bytes' in batch)) throw new Error('the file reader yields bytes');
        const text = new TextDecoder().decode(batch.bytes);
        expect(text.endsWith('\n')).toBe(true);
        expect(text.split('\n')).toHaveLength(batch.count + 1);
        lines.push(...text.split('\n').slice(0, -1));
      }
      expect(lines.map((l) => l.trim())).toEqual(text.split('\r\n'));
      expect((await judgeStream(fileLines(path, size), 'h')).report).toEqual(whole);
    }
  });

  it('names the line that is not UTF-8, whichever chunk holds it, whole or cut', async () => {
    const good = Buffer.from('{"type":"push","process":"p","id":"m1","invokedAt":0,"completedAt":1,"outcome":"ok"}\n');
    const bad = Buffer.from('{"type":"ack","process":"c","id":"m\xff","invokedAt":4,"completedAt":5,"outcome":"ok"}\n', 'latin1');
    const path = join(dir, 'bad.jsonl');
    writeFileSync(path, Buffer.concat([good, good, bad, good]));
    for (const size of [1, 2, 5, 64, 90, 100, 200, 1 << 20]) {
      const read = async () => {
        for await (const _ of fileLines(path, size)());
      };
      await expect(read(), `chunks of ${size}`).rejects.toThrow(HistoryFileError);
      await read().catch((err: HistoryFileError) => expect(err.line, `chunks of ${size}`).toBe(3));
    }
  });
});
