import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { dynoq } from '../support/dynoq-cli.js';

/** `dynoq guarantees` measures for minutes: an output it cannot write is refused before measuring. */
describe('dynoq guarantees --out / --scenarios', () => {
  const cwd = mkdtempSync(join(tmpdir(), 'dynoq-guarantees-out-'));
  afterAll(() => rmSync(cwd, { recursive: true, force: true }));
  mkdirSync(join(cwd, 'g'));
  writeFileSync(join(cwd, 'g', 'G.md'), 'a file\n');

  it.each([
    [['--out', 'g/G.md/x.md'], 'dynoq: cannot write g/G.md/x.md: g/G.md is a file, not a folder'],
    [['--out', 'g'], 'dynoq: cannot write g: it is a folder'],
    [['--out', 'ok.md', '--scenarios', 'g/G.md'], 'dynoq: cannot write g/G.md/scenario.json: g/G.md is a file, not a folder'],
  ])('%j: exit 2 at once, one line, nothing measured', async (args, message) => {
    const r = await dynoq(['guarantees', '--seeds', '1', '--only', 'primary-replica/atomic/none', ...args], cwd);
    expect(r.code).toBe(2);
    // No progress line: the measurement never started.
    expect(r.stderr).toBe(`${message}\n`);
  }, 60_000);
});
