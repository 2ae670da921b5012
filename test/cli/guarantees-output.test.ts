import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
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

/** The pages are rendered from the data alone: `--render-from` gives the same pages without a run. */
describe('dynoq guarantees --render-from', () => {
  const cwd = mkdtempSync(join(tmpdir(), 'dynoq-guarantees-render-'));
  afterAll(() => rmSync(cwd, { recursive: true, force: true }));

  it('writes the data beside the page, and renders the same page and HTML from it', async () => {
    const measured = await dynoq(['guarantees', '--seeds', '2', '--only', 'primary-replica/atomic/none', '--out', 'm/page.md'], cwd);
    expect(measured.code).toBe(0);
    const data = JSON.parse(readFileSync(join(cwd, 'm', 'GUARANTEES.json'), 'utf8')) as { seeds: number; rows: { name: string; runs: number }[] };
    expect(data.seeds).toBe(2);
    // The table measures the full profile's rows only (TABLE_PROFILE).
    expect(data.rows.map((r) => [r.name, r.runs])).toEqual([['primary-replica/atomic/none/full', 2]]);
    const rendered = await dynoq(['guarantees', '--render-from', 'm/GUARANTEES.json', '--out', 'r/page.md', '--html', 'r/page.html'], cwd);
    expect(rendered.code).toBe(0);
    expect(rendered.stderr).toBe('');
    expect(readFileSync(join(cwd, 'r', 'page.md'), 'utf8')).toBe(readFileSync(join(cwd, 'm', 'page.md'), 'utf8'));
    expect(readFileSync(join(cwd, 'r', 'page.html'), 'utf8')).toBe(readFileSync(join(cwd, 'm', 'guarantees.html'), 'utf8'));
    expect(readFileSync(join(cwd, 'r', 'page.md'), 'utf8')).toContain('### primary-replica: `primary-replica/atomic`');
  }, 120_000);

  it('takes the advice from the code, not from the data: advice changed since the measurement is rendered and written back into the data', async () => {
    const published = readFileSync(new URL('../../docs/GUARANTEES.json', import.meta.url), 'utf8');
    const stale = JSON.parse(published) as { advice: string[] };
    // An advice the published page shows.
    const shown = readFileSync(new URL('../../docs/GUARANTEES.md', import.meta.url), 'utf8');
    const i = stale.advice.findIndex((text) => shown.includes(text));
    expect(i).toBeGreaterThanOrEqual(0);
    const first = stale.advice[i]!;
    stale.advice[i] = 'advice the code no longer gives.';
    mkdirSync(join(cwd, 's'), { recursive: true });
    writeFileSync(join(cwd, 's', 'GUARANTEES.json'), JSON.stringify(stale));
    const rendered = await dynoq(['guarantees', '--render-from', 's/GUARANTEES.json', '--out', 's/page.md'], cwd);
    expect(rendered.code).toBe(0);
    expect(rendered.stdout).toContain('its advice, changed in the code since, written into s/GUARANTEES.json');
    const page = readFileSync(join(cwd, 's', 'page.md'), 'utf8');
    expect(page).not.toContain('advice the code no longer gives.');
    expect(page).toContain(first);
    // The published data is the code's advice already: rendering it changes nothing.
    expect(readFileSync(join(cwd, 's', 'GUARANTEES.json'), 'utf8')).toBe(published);
  }, 120_000);

  it.each([
    ['missing.json', null, 'dynoq: --render-from missing.json: no such file'],
    ['text.json', 'not json', 'dynoq: text.json is not JSON: '],
    ['old.json', JSON.stringify({ format: 0 }), 'dynoq: old.json: format: '],
    ['rows.json', JSON.stringify({ format: 1, command: 'x', timing: null, seeds: 1, rows: [], scenarios: [], advice: [], adviceOf: {} }), 'dynoq: rows.json: rows: '],
  ])('%s: exit 2, one line naming what is wrong, nothing written', async (file, text, message) => {
    if (text !== null) writeFileSync(join(cwd, file), text);
    const r = await dynoq(['guarantees', '--render-from', file, '--out', `bad-${file}.md`], cwd);
    expect(r.code).toBe(2);
    expect(r.stderr.startsWith(message)).toBe(true);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(existsSync(join(cwd, `bad-${file}.md`))).toBe(false);
  }, 60_000);
});
