import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { dynoq, root } from '../support/dynoq-cli.js';

/** `dynoq sim` and `explore` flags: what they say is what ran, and conflicting or empty ones are refused. */
describe('dynoq sim flags', () => {
  const cwd = mkdtempSync(join(tmpdir(), 'dynoq-sim-flags-'));
  afterAll(() => rmSync(cwd, { recursive: true, force: true }));

  it('the story under --mode atomic labels every run atomic (its legacy runs ran atomic)', async () => {
    const r = await dynoq(['sim', '--mode', 'atomic', '--messages', '10'], cwd);
    const rows = r.stdout.split('\n').filter((l) => l.startsWith('- '));
    expect(rows).toHaveLength(5);
    expect(rows.every((l) => l.startsWith('- atomic on '))).toBe(true);
    expect(r.stdout).not.toContain('legacy');
  }, 60_000);

  it.each([
    [['sim', join(root, 'scenarios', 'consumer-crash-unack-recovery.json'), '--configuration', 'primary-replica/atomic/none'], /^dynoq: give a scenario file or --configuration, not both/],
    [['sim', '--seed', ''], /^error: option '--seed <seed>' argument '' is invalid\. a seed must not be empty/],
    [['explore', '--seed', '', '--runs', '1'], /^error: option '--seed <seed>' argument '' is invalid\. a seed must not be empty/],
  ])('%j is a usage error: exit 2, nothing run', async (args, message) => {
    const r = await dynoq(args, cwd);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(r.stdout).toBe('');
  });
});
