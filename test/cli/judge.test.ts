import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
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

  it('exits 0 when valid, 1 when a property was violated, 4 when unknown, 2 on bad input', () => {
    const clean = file('clean.jsonl', [op('push', 'p', 0, 1, 'ok', { delayMs: 0 }), op('deliver', 'c1', 2, 3, 'ok', { leaseUntil: 1_002 }), op('ack', 'c1', 4, 5, 'ok')]);
    const held = dynoq('judge', clean);
    expect(held.code).toBe(0);
    expect(held.out).toContain('at-least-once held');
    expect(held.out).toContain('verdict: VALID');

    // The only ack returned unknown: at-least-once holds only because it may have applied. 1 of 1
    // messages undetermined is more than the default 1 %: unknown, exit 4 — unless the user allows it.
    const unsure = file('unsure.jsonl', [op('push', 'p', 0, 1, 'ok', { delayMs: 0 }), op('deliver', 'c1', 2, 3, 'ok', { leaseUntil: 1_002 }), op('ack', 'c1', 4, 5, 'unknown')]);
    const unknown = dynoq('judge', unsure);
    expect(unknown.code).toBe(4);
    expect(unknown.out).toContain('at-least-once held');
    expect(unknown.out).toContain('1 of 1 message(s) undetermined');
    expect(unknown.out).toContain('verdict: UNKNOWN');
    expect(dynoq('judge', unsure, '--max-undetermined', '1').code).toBe(0);
    expect(JSON.parse(dynoq('judge', unsure, '--json').out).verdict).toBe('unknown');
    expect(dynoq('judge', unsure, '--max-undetermined', '2').code).toBe(2);

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

  it('explains each finding by the faults in effect at its time and shows the recorder\'s own fields', () => {
    const path = file('faults.jsonl', [
      { type: 'run', version: 3, end: 10_000 },
      { type: 'fault', phase: 'start', kind: 'partition', target: 'node-2', at: 0, detail: { rule: 'drop 6379' } },
      { type: 'fault', phase: 'start', kind: 'kill', target: 'worker-1', at: 50 },
      { type: 'fault', phase: 'end', kind: 'kill', target: 'worker-1', at: 60 },
      op('push', 'p', 0, 1, 'ok', { job: 'send-email', attempt: 1, trace: { span: 'abc' } }),
    ]);
    const r = dynoq('judge', path);
    expect(r.code).toBe(1);
    expect(r.out).toMatch(/- m1 at t\+10000 ms \[p\]: pushed at (t\+1 ms|1), never delivered/);
    expect(r.out).toContain('why ← fault partition on node-2 (t+0 ms–end): {"rule":"drop 6379"}');
    // the kill ended long before the finding's time: not in effect
    expect(r.out).not.toContain('fault kill');
    expect(r.out).toContain('push by p at t+0 ms: {"job":"send-email","attempt":1,"trace":{"span":"abc"}}');
    const json = JSON.parse(dynoq('judge', path, '--json').out);
    expect(json.report.violations[0].faults).toEqual([{ kind: 'partition', target: 'node-2', from: 0, to: null, detail: { rule: 'drop 6379' } }]);
    expect(json.faults).toHaveLength(2);
  });

  it('gives every time of --json twice: raw, and relative (t+N ms from the first invocation) as the text prints it', () => {
    const t0 = 1_700_000_000_000;
    const path = file('relative.jsonl', [
      { type: 'run', version: 4, livenessStart: t0, end: t0 + 60_000 },
      { type: 'fault', phase: 'start', kind: 'partition', target: 'node-2', at: t0 + 50 },
      op('push', 'p', t0 + 100, t0 + 103, 'ok', { job: 'send' }),
      op('deliver', 'c1', t0 + 200, t0 + 205, 'ok', { leaseUntil: t0 + 30_200 }),
      op('deliver', 'c2', t0 + 300, t0 + 305, 'ok', { leaseUntil: t0 + 30_300 }),
      op('ack', 'c2', t0 + 400, t0 + 405, 'ok'),
    ]);
    const text = dynoq('judge', path).out;
    const json = JSON.parse(dynoq('judge', path, '--json').out);
    expect(json.start).toBe(t0 + 100);
    expect(json.phases).toMatchObject({ livenessStart: t0, livenessStartRelative: 't+-100 ms', end: t0 + 60_000, endRelative: 't+59900 ms' });
    expect(json.faults).toEqual([{ kind: 'partition', target: 'node-2', from: t0 + 50, to: null, fromRelative: 't+-50 ms', toRelative: 'end' }]);
    const doublePop = json.report.violations.find((v: { kind: string }) => v.kind === 'double-pop');
    expect(doublePop).toMatchObject({ t: t0 + 305, tRelative: 't+205 ms', detail: `delivered to c2 at ${t0 + 305} while c1 held it (popped at ${t0 + 205}, held until ${t0 + 30_200})` });
    expect(doublePop.detailRelative).toBe('delivered to c2 at t+205 ms while c1 held it (popped at t+105 ms, held until t+30100 ms)');
    expect(doublePop.extras).toEqual([{ type: 'push', process: 'p', invokedAt: t0 + 100, invokedAtRelative: 't+0 ms', extra: { job: 'send' } }]);
    // The text output prints the same relative times, and no raw one.
    expect(text).toContain(`- m1 at ${doublePop.tRelative} [c1, c2]: ${doublePop.detailRelative}`);
    expect(text).not.toMatch(/1700000\d{6}/);
  });

  it('calls in flight at the end are unknown, not lost; an unknown push later delivered is recovered', () => {
    const path = file('endings.jsonl', [
      // m1: delivered, its ack still in flight at the end (no completedAt): not lost
      op('push', 'p', 0, 1, 'ok'),
      op('deliver', 'c1', 2, 3, 'ok', { leaseUntil: 100_000 }),
      { type: 'ack', process: 'c1', id: 'm1', invokedAt: 4, outcome: 'unknown' },
      // m2: its push timed out (unknown), yet it was delivered and acked: recovered
      { ...op('push', 'p', 0, 30, 'unknown'), id: 'm2' },
      { ...op('deliver', 'c2', 40, 41, 'ok', { leaseUntil: 100_000 }), id: 'm2' },
      { ...op('ack', 'c2', 42, 43, 'ok'), id: 'm2' },
      // many acked messages, so that one undetermined message is under 1 %
      ...Array.from({ length: 150 }, (_, i) => [
        { ...op('push', 'p', 0, 1, 'ok'), id: `n${i}` },
        { ...op('deliver', 'c3', 2, 3, 'ok', { leaseUntil: 100_000 }), id: `n${i}` },
        { ...op('ack', 'c3', 4, 5, 'ok'), id: `n${i}` },
      ]).flat(),
    ]);
    const r = dynoq('judge', path, '--end', '1000');
    expect(r.out).toContain('1 call(s) in flight at the end (unknown) · 1 recovered');
    expect(r.out).toContain('1 of 152 message(s) undetermined');
    expect(r.out).toContain('at-least-once held');
    expect(r.code).toBe(0);
    // an ack in flight that says it returned ok is refused
    const bad = dynoq('judge', file('inflight-ok.jsonl', [op('push', 'p', 0, 1, 'ok'), { type: 'ack', process: 'c1', id: 'm1', invokedAt: 4, outcome: 'ok' }]));
    expect(bad.code).toBe(2);
    expect(bad.out).toMatch(/inflight-ok\.jsonl:2: completedAt: missing, so the operation was in flight when the history ended: its outcome must be unknown, not ok/);
  });

  it('refuses a newer format version with a clear error, keeps unknown fields, still refuses a missing field', () => {
    const newer = dynoq('judge', file('v9.jsonl', [{ type: 'run', version: 9 }, op('push', 'p', 0, 1, 'ok')]));
    expect(newer.code).toBe(2);
    expect(newer.out).toMatch(/v9\.jsonl:1: version: 9 is newer than this dynoq reads \(versions 1 to 5\); upgrade dynoq/);
    // a typo in a required field: the field is missing
    const typo = dynoq('judge', file('typo.jsonl', [{ type: 'push', proces: 'p', id: 'm1', invokedAt: 0, completedAt: 1, outcome: 'ok' }]));
    expect(typo.code).toBe(2);
    expect(typo.out).toMatch(/typo\.jsonl:1: process: /);
    const extra = dynoq('judge', file('extra.jsonl', [{ type: 'run', recorder: 'bullmq-5' }, op('push', 'p', 0, 1, 'ok', { attempt: 2 }), op('deliver', 'c1', 2, 3, 'ok', { leaseUntil: 1_000, job: 'x' }), op('ack', 'c1', 4, 5, 'ok')]));
    expect(extra.code).toBe(0);
  });

  it('docs/scenario.schema.json is the scenario schema as generated (dynoq schema), real twins included', () => {
    const generated = dynoq('schema');
    expect(generated.code).toBe(0);
    expect(readFileSync(join(ROOT, 'docs/scenario.schema.json'), 'utf8')).toBe(generated.out);
    expect(JSON.parse(generated.out).properties.real.type).toBe('boolean');
  });

  it('docs/history.schema.json is the format\'s schema as generated (dynoq schema --history), every field described', () => {
    const generated = dynoq('schema', '--history');
    expect(generated.code).toBe(0);
    expect(readFileSync(join(ROOT, 'docs/history.schema.json'), 'utf8')).toBe(generated.out);
    const missing: string[] = [];
    const walk = (s: unknown, path: string): void => {
      if (!s || typeof s !== 'object') return;
      const node = s as { properties?: Record<string, { description?: string }>; anyOf?: unknown[]; oneOf?: unknown[] };
      for (const [k, v] of Object.entries(node.properties ?? {})) if (!v.description) missing.push(`${path}.${k}`);
      for (const x of [...(node.anyOf ?? []), ...(node.oneOf ?? [])]) walk(x, `${path}[]`);
    };
    walk(JSON.parse(generated.out), '');
    expect(missing).toEqual([]);
  });

  it('judges what dynoq sim --history wrote exactly as the run did', () => {
    const path = join(dir, 'run.jsonl');
    const sim = dynoq('sim', 'scenarios/primary-crash-loses-pushes.json', '--history', path);
    expect(sim.out).toContain('at-least-once VIOLATED');
    const judged = dynoq('judge', path);
    expect(judged.code).toBe(1);
    expect(judged.out).toContain('at-least-once VIOLATED');
  }, 60_000);
});
