import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { formatEta } from '../../src/cli/progress.js';
import { dynoq, root } from '../support/dynoq-cli.js';
import { redisServerBinary, startRedisServer } from '../support/redis-server.js';

/**
 * The dynoq command as CI sees it: exit codes (0 held/matched, 1 violated/differed, 2 bad input or
 * usage), --json on stdout only, one-line errors. Runs src/cli/main.ts through tsx, so no build is needed.
 */
const scenario = join(root, 'scenarios', 'consumer-crash-unack-recovery.json');
const version = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string }).version;

describe('dynoq exit codes and output', () => {
  const cwd = mkdtempSync(join(tmpdir(), 'dynoq-cli-'));
  afterAll(() => rmSync(cwd, { recursive: true, force: true }));

  it('--version prints the package version, exit 0', async () => {
    const r = await dynoq(['--version'], cwd);
    expect([r.code, r.stdout.trim()]).toEqual([0, version]);
  });

  it.each([
    [['no-such-command']],
    [['sim', '--no-such-flag']],
    [['sim', '--messages', 'x']],
    [['sim', '--mode', 'fast']],
    [['check']],
    [['explore']],
    [['explore', '--time', '0s']],
  ])('usage error %j: exit 2, one line and a pointer to the help (not the help itself)', async (args) => {
    const r = await dynoq(args, cwd);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    const lines = r.stderr.trim().split('\n');
    expect(lines.length).toBeLessThanOrEqual(2);
    if (lines.length === 2) expect(lines[1]).toBe(args[0] === 'no-such-command' ? '(see dynoq --help)' : `(see dynoq ${args[0]} --help)`);
  });

  it.each([
    [['replay', 'missing.json'], /^dynoq: missing\.json: invalid scenario\n {2}- cannot read: ENOENT/],
    [['report', 'missing.jsonl', '--html', 'x.html'], /^dynoq: missing\.jsonl: /],
    [['check', '--redis', 'not a url'], /^dynoq: invalid Redis URL: "not a url" is not a URL/],
    [['check', '--redis', 'http://127.0.0.1:6379'], /^dynoq: invalid Redis URL: unknown scheme http:/],
    [['check', '--redis', 'redis://127.0.0.1:1/abc'], /^dynoq: invalid Redis URL: the database "abc" in redis:\/\/127\.0\.0\.1:1\/abc is not a non-negative integer/],
    [['check', '--redis', 'redis://127.0.0.1:1/-1'], /^dynoq: invalid Redis URL: the database "-1"/],
    [['check', '--redis', 'redis://127.0.0.1:1'], /^dynoq: cannot reach Redis at redis:\/\/127\.0\.0\.1:1: .*ECONNREFUSED/],
    [['check', '--redis', 'redis-cluster://127.0.0.1:1'], /^dynoq: cannot reach Redis at redis-cluster:\/\/127\.0\.0\.1:1: /],
    [['sim', '--configuration', 'nope'], /^dynoq: unknown configuration nope/],
  ])('bad input %j: one friendly error, exit 2, no stack trace', async (args, message) => {
    const r = await dynoq(args, cwd);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });

  it('DYNOQ_SCRIPTS other than twin or lua: one line naming both, exit 2 (sim, and explore on worker threads)', async () => {
    for (const args of [['sim', '--messages', '10'], ['explore', '--runs', '2', '--jobs', '2']]) {
      const r = await dynoq(args, cwd, { DYNOQ_SCRIPTS: 'bogus' });
      expect(r.stderr).toMatch(/^dynoq: invalid DYNOQ_SCRIPTS: "bogus" is not 'twin', 'lua' or 'compare'/m);
      expect(r.stderr).not.toMatch(/\n\s+at /);
      expect(r.code).toBe(2);
    }
  }, 60_000);

  it.runIf(redisServerBinary() !== null)('check on a database the server refuses: one line, exit 2, nothing run in database 0', async () => {
    const server = await startRedisServer({ args: ['--databases', '4'] });
    try {
      const r = await dynoq(['check', '--redis', `${server.url}/99`, '--runs', '1'], cwd);
      expect(r.stderr).toMatch(/^dynoq: redis:\/\/127\.0\.0\.1:\d+\/99: Redis refused database 99 \(ERR DB index is out of range\)/);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect([r.code, r.stdout]).toEqual([2, '']);
    } finally {
      await server.stop();
    }
  }, 60_000);

  it('sim: exit 0 when every property held, 1 when one was violated (the default story shows violations)', async () => {
    const held = await dynoq(['sim', '--configuration', 'primary-replica/atomic/none', '--json'], cwd);
    const [run] = JSON.parse(held.stdout) as { report: { properties: Record<string, boolean> } }[];
    expect(run!.report.properties).toEqual({ atLeastOnce: true, unackRecovery: true, noDoublePop: true, acksAreFinal: true, onTime: true, noPhantoms: true, priorityOrder: true, deliveredPromptly: true, twinsMatchLua: true });
    expect(held.code).toBe(0);
    const story = await dynoq(['sim', '--messages', '30', '--json'], cwd);
    const runs = JSON.parse(story.stdout) as { report: { properties: Record<string, boolean> } }[];
    expect(runs.some((r) => Object.values(r.report.properties).includes(false))).toBe(true);
    expect(story.code).toBe(1);
  }, 60_000);

  it('sim --json: stdout is exactly one JSON document, the notes go to stderr; output folders are created', async () => {
    const r = await dynoq(['sim', scenario, '--json', '--html', 'out/nested/run.html', '--trace', 'out/traces/run.jsonl'], cwd);
    expect(r.code).toBe(0);
    const doc = JSON.parse(r.stdout) as { seed: string }[];
    expect(doc.map((d) => d.seed)).toEqual(['crash-1']);
    expect(r.stderr).toContain('seed crash-1');
    expect(r.stderr).toContain('HTML report written to out/nested/run.html');
    expect(existsSync(join(cwd, 'out', 'nested', 'run.html'))).toBe(true);
    const report = await dynoq(['report', 'out/traces/run.jsonl', '--html', 'other/dir/report.html'], cwd);
    expect(report.code).toBe(0);
    expect(existsSync(join(cwd, 'other', 'dir', 'report.html'))).toBe(true);
  });

  it('replay: exit 0 when it matches, 1 when the recorded hash differs (--json says which)', async () => {
    expect((await dynoq(['replay', scenario], cwd)).code).toBe(0);
    const changed = JSON.parse(readFileSync(scenario, 'utf8')) as { expect: { traceHash: string } };
    changed.expect.traceHash = '0'.repeat(64);
    writeFileSync(join(cwd, 'changed.json'), JSON.stringify(changed));
    const r = await dynoq(['replay', 'changed.json', '--json'], cwd);
    expect(r.code).toBe(1);
    const doc = JSON.parse(r.stdout) as { differed: number; scenarios: { matched: boolean; problems: string[] }[] };
    expect(doc.differed).toBe(1);
    expect(doc.scenarios[0]!.problems[0]).toMatch(/differs from the recorded 0000/);
  });

  it('explore --from: explores around the user’s scenario, --json lists the findings; exit 1 iff one was found', async () => {
    const r = await dynoq(['explore', '--from', scenario, '--runs', '2', '--seed', 'mine', '--out', 'found', '--json'], cwd);
    const doc = JSON.parse(r.stdout) as { from: string; explored: number; found: number; findings: { file: string }[] };
    expect(doc.from).toBe(scenario);
    expect(doc.explored).toBe(2);
    expect(r.code).toBe(doc.found > 0 ? 1 : 0);
    expect(r.stderr).toMatch(/explore: 2\/2 · /);
    for (const f of doc.findings) {
      const written = JSON.parse(readFileSync(join(cwd, f.file), 'utf8')) as { workload: { messages: number }; topology: { zones: string[] } };
      expect(written.topology.zones).toEqual(['a', 'b']);
    }
  }, 120_000);

  it('guarantees writes where it is told, into folders it creates', async () => {
    const r = await dynoq(['guarantees', '--seeds', '1', '--out', 'reports/g.md'], cwd);
    expect(r.code).toBe(0);
    expect(readFileSync(join(cwd, 'reports', 'g.md'), 'utf8')).toContain('dynoq guarantees --seeds 1');
  }, 120_000);
});

describe('progress ETA', () => {
  it('formats seconds, minutes and hours; unknown is ?', () => {
    expect([formatEta(4_400), formatEta(61_000), formatEta(3_725_000), formatEta(Number.NaN)]).toEqual(['4s', '1m01s', '1h02m', '?']);
  });
});
