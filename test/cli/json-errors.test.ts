import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { dynoq } from '../support/dynoq-cli.js';

/** README: with --json, stdout carries exactly one JSON document — a failing command's too. */
describe('dynoq --json on failure', () => {
  const cwd = mkdtempSync(join(tmpdir(), 'dynoq-json-errors-'));
  afterAll(() => rmSync(cwd, { recursive: true, force: true }));

  it.each([
    [['sim', 'missing.json', '--json'], /^missing\.json: invalid scenario\n {2}- cannot read: ENOENT/],
    [['sim', '--messages', 'abc', '--json'], /^option '--messages <n>' argument 'abc' is invalid/],
    [['judge', 'missing.jsonl', '--json'], /missing\.jsonl/],
  ])('%j: exit 2, stdout is one JSON document naming the error, stderr the usual line', async (args, error) => {
    const r = await dynoq(args, cwd);
    expect(r.code).toBe(2);
    const doc = JSON.parse(r.stdout) as { error: string; exitCode: number };
    expect(doc.exitCode).toBe(2);
    expect(doc.error).toMatch(error);
    expect(r.stderr).not.toBe('');
  });

  it('without --json, stdout stays empty', async () => {
    const r = await dynoq(['sim', 'missing.json'], cwd);
    expect([r.code, r.stdout]).toEqual([2, '']);
  });
});
