import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { fileLines, MAX_LINE_BYTES } from '../../src/cli/line-reader.js';
import { HistoryFileError } from '../../src/model/history-file.js';
import { root } from '../support/dynoq-cli.js';

const tsxCli = createRequire(import.meta.url).resolve('tsx/cli');

/** The CLI, killed after `limitMs` (then `code` is null): an input that is read forever fails the test instead of hanging it. */
function dynoqWithin(limitMs: number, args: readonly string[], cwd: string): Promise<{ code: number | null; out: string; ms: number }> {
  return new Promise((done) => {
    const t0 = Date.now();
    const child = spawn(process.execPath, [tsxCli, join(root, 'src/cli/main.ts'), ...args], { cwd, env: { ...process.env, NO_COLOR: '1' } });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), limitMs);
    child.on('close', (code) => {
      clearTimeout(timer);
      done({ code, out, ms: Date.now() - t0 });
    });
  });
}

const line = (o: object) => Buffer.from(`${JSON.stringify(o)}\n`);

describe('bad input to the commands that read files', () => {
  const dir = mkdtempSync(join(tmpdir(), 'dynoq-bad-input-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('a history whose bytes are not UTF-8 is refused, naming the line: ids that differ only in invalid bytes are never merged', async () => {
    // Two pushes of different ids (bytes a FF and a FE); only the first is delivered and acked: the
    // second is lost. Decoded with replacement characters both would be "a\uFFFD" and the history VALID.
    const push = (id: Buffer, t: number) => Buffer.concat([Buffer.from(`{"type":"push","process":"p","id":"`), id, Buffer.from(`","invokedAt":${t},"completedAt":${t + 1},"outcome":"ok"}\n`)]);
    const rest = [line({ type: 'deliver', process: 'c', id: 'a\uFFFD', invokedAt: 5, completedAt: 6, leaseUntil: 100 }), line({ type: 'ack', process: 'c', id: 'a\uFFFD', invokedAt: 7, completedAt: 8, outcome: 'ok' })];
    const file = join(dir, 'latin.jsonl');
    writeFileSync(file, Buffer.concat([line({ type: 'run', end: 10_000 }), push(Buffer.from([0x61, 0xff]), 0), push(Buffer.from([0x61, 0xfe]), 2), ...rest]));
    for (const command of ['judge', 'report']) {
      const r = await dynoqWithin(60_000, command === 'judge' ? ['judge', file] : ['report', file, '--html', join(dir, 'latin.html')], dir);
      expect(r.code, `${command}: ${r.out}`).toBe(2);
      expect(r.out).toMatch(/latin\.jsonl:2: not valid UTF-8/);
    }
  }, 120_000);

  it(`a line longer than ${MAX_LINE_BYTES} bytes is refused, naming it, without reading the rest of it`, async () => {
    const file = join(dir, 'long.jsonl');
    const ok = line({ type: 'push', process: 'p', id: 'm', invokedAt: 0, completedAt: 1, outcome: 'ok' });
    writeFileSync(file, Buffer.concat([ok, Buffer.from(`{"type":"push","process":"p","id":"${'x'.repeat(MAX_LINE_BYTES)}"`), Buffer.alloc(4 * MAX_LINE_BYTES, 0x20), Buffer.from('}\n'), ok]));
    const r = await dynoqWithin(60_000, ['judge', file], dir);
    expect(r.code, r.out).toBe(2);
    expect(r.out).toContain(`long.jsonl:2: longer than ${MAX_LINE_BYTES} bytes`);
    // The reader gives up once the line passes the maximum: it never reads the rest of the file.
    let read = 0;
    const source = fileLines(file, 4096, (n) => (read += n));
    await expect(async () => {
      for await (const _ of source());
    }).rejects.toThrow(HistoryFileError);
    expect(read).toBeLessThanOrEqual(MAX_LINE_BYTES + 2 * 4096 + ok.length);
  }, 120_000);

  it('a FIFO, a device or a folder given as a file is refused at once by every command that reads one', async () => {
    const fifo = join(dir, 'fifo');
    if (spawnSync('mkfifo', [fifo]).status !== 0) throw new Error('mkfifo failed');
    const folder = join(dir, 'folder');
    mkdirSync(folder);
    for (const input of [fifo, '/dev/zero', folder]) {
      for (const args of [
        ['judge', input],
        ['report', input, '--html', join(dir, 'x.html')],
        ['sim', input],
        ['replay', input],
        ['explore', '--runs', '1', '--known', input, '--out', join(dir, 'found')],
      ]) {
        const r = await dynoqWithin(30_000, args, dir);
        expect(r.code, `${args.join(' ')}: ${r.out}`).toBe(2);
        expect(r.out, args.join(' ')).toMatch(/not a regular file/);
        expect(r.out.trim().split('\n'), args.join(' ')).toHaveLength(1);
      }
    }
  }, 600_000);
});
