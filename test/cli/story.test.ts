import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseGuaranteesData } from '../../src/sim/campaign/guarantees-data.js';
import { whatToUse, whatToUseLines } from '../../src/sim/campaign/guarantees-page.js';
import { dynoq, root } from '../support/dynoq-cli.js';

/** The default story (`dynoq sim` with no scenario, and `npm start`): what it prints and how it exits. */
describe('the default story', () => {
  const cwd = mkdtempSync(join(tmpdir(), 'dynoq-story-'));
  afterAll(() => rmSync(cwd, { recursive: true, force: true }));

  it('--mode legacy runs the story to its end (the server-time run is named as not run, not an input error)', async () => {
    const r = await dynoq(['sim', '--mode', 'legacy', '--messages', '10'], cwd);
    expect(r.stderr).not.toContain('serverTime');
    expect([0, 1]).toContain(r.code);
    const rows = r.stdout.split('\n').filter((l) => l.startsWith('- '));
    expect(rows).toHaveLength(5);
    expect(rows[4]).toMatch(/^- legacy \(Dyno-queues v1\) on primary-replica: .*server time.*: not run: serverTime is an atomic-mode option/);
  }, 60_000);

  it('ends with what the published table recommends, every figure taken from docs/GUARANTEES.json', async () => {
    const r = await dynoq(['sim', '--messages', '10'], cwd);
    const file = join(root, 'docs', 'GUARANTEES.json');
    const w = whatToUse(parseGuaranteesData(readFileSync(file, 'utf8'), file));
    const lines = r.stdout.split('\n');
    const at = lines.indexOf('What to use (measured: docs/GUARANTEES.md; every cell: docs/guarantees.html):');
    expect(at).toBeGreaterThan(0);
    expect(lines.slice(at + 1, at + 1 + w.topologies.length + 2)).toEqual(whatToUseLines(w).map((l) => `  ${l}`));
    expect(lines[at + 1 + w.topologies.length + 1]).toContain(`How sure: ${w.seeds} seeds per configuration`);
    for (const t of w.topologies) expect(r.stdout).toContain(`${t.topology}: ${t.summary} (${t.setup}) loses no acknowledged message under ${t.keeps.length} of`);
  }, 60_000);

  it('prints its seed once, not once per run', async () => {
    const r = await dynoq(['sim', '--messages', '10'], cwd);
    expect(r.stdout.split('\n').filter((l) => l === 'seed story')).toHaveLength(1);
  }, 60_000);

  it('points each violated property at a mechanism scenario of the same queue mode', async () => {
    // run in the repository, where scenarios/mechanisms is at hand
    const r = await dynoq(['sim'], root);
    const lines = r.stdout.split('\n');
    let mode = '';
    const pointers: { mode: string; file: string }[] = [];
    for (const l of lines) {
      const row = /^- (legacy|atomic) /.exec(l);
      if (row) mode = row[1]!;
      const replay = /replay (scenarios\/\S+\.json)/.exec(l);
      if (replay) pointers.push({ mode, file: replay[1]! });
    }
    expect(pointers.length).toBeGreaterThan(0);
    for (const p of pointers) expect(p.file, `${p.mode} row points at ${p.file}`).toContain(`-${p.mode}-`);
  }, 60_000);
});

describe('npm start', () => {
  const npm = (args: string[]) => spawnSync('npm', ['start', '--silent', '--', ...args], { cwd: root, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' } });

  it('passes its arguments to dynoq sim (npm start -- --help exits 0 with the sim help)', () => {
    const r = npm(['--help']);
    expect(r.stderr).not.toContain('missing ]');
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('Usage: dynoq sim');
  }, 60_000);

  it('npm start -- --verbose --messages 10 exits 0 although the story shows violations on purpose', () => {
    const r = npm(['--verbose', '--messages', '10']);
    expect(r.stderr).not.toContain('missing ]');
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('== legacy (Dyno-queues v1) on dynomite');
  }, 60_000);
});
