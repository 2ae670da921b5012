import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { historyFile, op } from '../support/history-lines.js';

const ROOT = join(import.meta.dirname, '..', '..');
/** Runs the real CLI and returns its exit code and output. */
function dynoq(...args: string[]): { code: number; out: string } {
  try {
    const out = execFileSync(process.execPath, ['--import', 'tsx', join(ROOT, 'src/cli/main.ts'), ...args], { cwd: ROOT, encoding: 'utf8', stdio: 'pipe' });
    return { code: 0, out };
  } catch (err) {
    const e = err as { status: number; stdout: string; stderr: string };
    return { code: e.status, out: e.stdout + e.stderr };
  }
}

describe('dynoq judge', () => {
  const dir = mkdtempSync(join(tmpdir(), 'dynoq-judge-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const file = (name: string, lines: unknown[]) => historyFile(dir, name, lines);

  it('exits 0 when every property held, 1 when one was violated, 2 on bad input', () => {
    const clean = file('clean.jsonl', [op('push', 'p', 0, 1, 'ok', { delayMs: 0 }), op('deliver', 'c1', 2, 3, 'ok', { leaseUntil: 1_002 }), op('ack', 'c1', 4, 5, 'unknown')]);
    const held = dynoq('judge', clean);
    expect(held.code).toBe(0);
    expect(held.out).toContain('at-least-once held');

    const lost = file('lost.jsonl', [{ type: 'run', reaperIntervalMs: 10, recoveryBoundMs: 10 }, op('push', 'p', 0, 1, 'ok'), op('deliver', 'c1', 2, 3, 'ok', { leaseUntil: 100 }), op('ack', 'c1', 4, 5, 'fail')]);
    const violated = dynoq('judge', lost, '--end', '1000');
    expect(violated.code).toBe(1);
    expect(violated.out).toContain('lost (delivered, then dropped): 1 message(s)');

    const json = dynoq('judge', lost, '--end', '1000', '--json');
    expect(json.code).toBe(1);
    expect(JSON.parse(json.out).report.properties.atLeastOnce).toBe(false);

    const bad = dynoq('judge', file('bad.jsonl', [op('ack', 'c1', 0, 1, 'perhaps')]));
    expect(bad.code).toBe(2);
    expect(bad.out).toMatch(/bad\.jsonl:1: outcome/);
    expect(dynoq('judge', join(dir, 'missing.jsonl')).code).toBe(2);
  }, 60_000);

  it('judges what dynoq sim --history wrote exactly as the run did', () => {
    const path = join(dir, 'run.jsonl');
    const sim = dynoq('sim', 'scenarios/primary-crash-loses-pushes.json', '--history', path);
    expect(sim.out).toContain('at-least-once VIOLATED');
    const judged = dynoq('judge', path);
    expect(judged.code).toBe(1);
    expect(judged.out).toContain('at-least-once VIOLATED');
  }, 60_000);
});
