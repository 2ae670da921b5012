import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runSimulation } from '../../src/sim/run/run.js';
import { loadScenario, scenarioConfig } from '../../src/sim/run/scenario.js';
import { dynoq, root } from '../support/dynoq-cli.js';

/** `dynoq report TRACE`: a trace is validated like a history file, and the exit code is the verdict's. */
describe('dynoq report', () => {
  const cwd = mkdtempSync(join(tmpdir(), 'dynoq-report-'));
  afterAll(() => rmSync(cwd, { recursive: true, force: true }));

  async function traceOf(scenario: string, file: string): Promise<string> {
    const result = await runSimulation({ ...scenarioConfig(loadScenario(join(root, 'scenarios', scenario))), keepTrace: true });
    writeFileSync(join(cwd, file), result.traceText!);
    return file;
  }

  let held: string;
  let violated: string;
  beforeAll(async () => {
    held = await traceOf('consumer-crash-unack-recovery.json', 'held.jsonl');
    violated = await traceOf('primary-crash-loses-pushes.json', 'violated.jsonl');
  }, 60_000);

  /** The trace with every history event's args changed by `edit`; the first such line's number. */
  function edited(name: string, edit: (args: Record<string, unknown>) => unknown): { file: string; line: number } {
    const lines = readFileSync(join(cwd, held), 'utf8').split('\n');
    let first = 0;
    const out = lines.map((l, i) => {
      if (!l.includes('"op":"history"')) return l;
      if (first === 0) first = i + 1;
      const e = JSON.parse(l) as { args: Record<string, unknown> };
      return JSON.stringify({ ...e, args: edit(e.args) });
    });
    writeFileSync(join(cwd, name), out.join('\n'));
    return { file: name, line: first };
  }

  it.each([
    ['args null', () => null, /history event args: Invalid input: expected object, received null/],
    ['type "weird"', (a: Record<string, unknown>) => ({ ...a, type: 'weird' }), /history event type: /],
    ['completedAt before invokedAt', (a: Record<string, unknown>) => ({ ...a, completedAt: -1 }), /history event completedAt -1 is before invokedAt/],
  ])('a history event with %s: exit 2, one line naming the line, no stack', async (_, edit, reason) => {
    const { file, line } = edited(`bad-${_.replace(/\W+/g, '-')}.jsonl`, edit);
    const r = await dynoq(['report', file, '--html', 'bad.html'], cwd);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(new RegExp(`^dynoq: ${file}: line ${line}: `));
    expect(r.stderr).toMatch(reason);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
  });

  it('exit 0 when the reported history kept every property, 1 when it violated one (as judge and sim)', async () => {
    expect((await dynoq(['report', held, '--html', 'held.html'], cwd)).code).toBe(0);
    const r = await dynoq(['report', violated, '--html', 'violated.html'], cwd);
    expect(r.stdout).toMatch(/report written to violated\.html .*violations\)/);
    expect(r.code).toBe(1);
  });

  it('a judged history (the dynoq judge format): drawn with its verdict’s exit code; a bad line exits 2 naming it', async () => {
    const push = { type: 'push', process: 'p', id: 'm', invokedAt: 0, completedAt: 1, outcome: 'ok', delayMs: 0 };
    const deliver = { type: 'deliver', process: 'w', id: 'm', invokedAt: 2, completedAt: 3, outcome: 'ok', leaseUntil: 1_000 };
    const ack = { type: 'ack', process: 'w', id: 'm', invokedAt: 4, completedAt: 5, outcome: 'ok' };
    const write = (name: string, ops: unknown[]) => writeFileSync(join(cwd, name), ops.map((o) => JSON.stringify(o)).join('\n'));
    write('h-held.jsonl', [{ type: 'run', version: 2 }, push, deliver, ack]);
    const ok = await dynoq(['report', 'h-held.jsonl', '--html', 'h-held.html'], cwd);
    expect(ok.stdout).toMatch(/report written to h-held\.html \(3 history operations, 0 violations\)/);
    expect(ok.code).toBe(0);
    expect(readFileSync(join(cwd, 'h-held.html'), 'utf8')).toContain('judged history · 3 operations · 2 processes');
    // No run line (told apart by its first operation); m's lease runs out long before the history ends (another message's ack): lost.
    const later = { ...ack, id: 'm2', invokedAt: 100_000, completedAt: 100_001 };
    write('h-lost.jsonl', [push, deliver, { ...push, id: 'm2', invokedAt: 99_990, completedAt: 99_991 }, { ...deliver, id: 'm2', invokedAt: 99_995, completedAt: 99_996, leaseUntil: 200_000 }, later]);
    expect((await dynoq(['report', 'h-lost.jsonl', '--html', 'h-lost.html'], cwd)).code).toBe(1);
    write('h-bad.jsonl', [{ type: 'run', version: 2 }, push, { ...ack, outcome: 'maybe' }]);
    const bad = await dynoq(['report', 'h-bad.jsonl', '--html', 'h-bad.html'], cwd);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/^dynoq: h-bad\.jsonl:3: outcome/);
  });

  it('a judged history with fault lines: each fault is a band, on its target\'s lane when that is a process', async () => {
    const push = { type: 'push', process: 'p', id: 'm', invokedAt: 0, completedAt: 1, outcome: 'ok', delayMs: 0 };
    const deliver = { type: 'deliver', process: 'w', id: 'm', invokedAt: 2, completedAt: 3, outcome: 'ok', leaseUntil: 1_000 };
    const ack = { type: 'ack', process: 'w', id: 'm', invokedAt: 4, completedAt: 5, outcome: 'ok' };
    const lines = [
      { type: 'run', version: 3, end: 100 },
      { type: 'fault', phase: 'start', kind: 'kill', target: 'w', at: 1 },
      { type: 'fault', phase: 'end', kind: 'kill', target: 'w', at: 2 },
      { type: 'fault', phase: 'start', kind: 'partition', target: 'redis-2', at: 3 },
      push,
      deliver,
      ack,
    ];
    writeFileSync(join(cwd, 'h-faults.jsonl'), lines.map((o) => JSON.stringify(o)).join('\n'));
    expect((await dynoq(['report', 'h-faults.jsonl', '--html', 'h-faults.html'], cwd)).code).toBe(0);
    const page = readFileSync(join(cwd, 'h-faults.html'), 'utf8');
    expect(page).toContain('"kind":"kill","lane":"w","from":1,"to":2,"label":"kill w"');
    // redis-2 is no process of the history: across the whole picture, to the end (no end line)
    expect(page).toContain('"kind":"partition","lane":null,"from":3,"to":100,"label":"partition redis-2"');
  });

  /** The page's data island and its verdict chips (label → held / not exercised / VIOLATED). */
  function pageOf(file: string): { data: { lanes: string[]; history: { actor: string; id: string }[]; drawn: { shown: number; total: number } }; chips: Map<string, string> } {
    const page = readFileSync(join(cwd, file), 'utf8');
    const island = page.slice(page.indexOf('<script type="application/json" id="data">') + 42, page.indexOf('</script>'));
    const chips = new Map([...page.matchAll(/<span class="verdict [a-z]+">([^<:]+): ([^<]+)<\/span>/g)].map((m) => [m[1]!, m[2]!]));
    return { data: JSON.parse(island), chips };
  }

  it('the page says "not exercised" exactly where the checker does (a hand-written history)', async () => {
    const ops = [
      { type: 'run', version: 3, end: 10_000 },
      { type: 'push', process: 'p', id: 'm', invokedAt: 0, completedAt: 1, outcome: 'ok', delayMs: 0 },
      { type: 'deliver', process: 'w', id: 'm', invokedAt: 2, completedAt: 3, outcome: 'ok', leaseUntil: 1_000 },
      { type: 'ack', process: 'w', id: 'm', invokedAt: 4, completedAt: 5, outcome: 'ok' },
    ];
    writeFileSync(join(cwd, 'h-plain.jsonl'), ops.map((o) => JSON.stringify(o)).join('\n'));
    const judged = JSON.parse((await dynoq(['judge', 'h-plain.jsonl', '--json'], cwd)).stdout) as { report: { properties: Record<string, boolean>; exercised: Record<string, boolean> } };
    expect((await dynoq(['report', 'h-plain.jsonl', '--html', 'h-plain.html'], cwd)).code).toBe(0);
    const { chips } = pageOf('h-plain.html');
    const { PROPERTIES, PROPERTY_NAMES } = await import('../../src/model/properties.js');
    const expected = new Map(PROPERTY_NAMES.map((p) => [PROPERTIES[p].label as string, !judged.report.properties[p] ? 'VIOLATED' : judged.report.exercised[p] ? 'held' : 'not exercised']));
    expect(chips).toEqual(expected);
    expect([...chips.values()].filter((v) => v === 'not exercised').length).toBeGreaterThanOrEqual(4);
  });

  it('a history of more messages than the page draws: every process has its lane and messages drawn on it', async () => {
    const lines = [JSON.stringify({ type: 'run', version: 3, end: 1_000_000 })];
    // 8 times the messages drawn: an even stride of 8 would draw producer-0 and worker-0 and worker-8 only (3 of 24 lanes).
    const n = 8 * 10_000;
    for (let i = 0; i < n; i++) {
      const t = i * 10;
      lines.push(JSON.stringify({ type: 'push', process: `producer-${i % 8}`, id: `msg-${i}`, invokedAt: t, completedAt: t + 1, outcome: 'ok', delayMs: 0 }));
      lines.push(JSON.stringify({ type: 'deliver', process: `worker-${i % 16}`, id: `msg-${i}`, invokedAt: t + 2, completedAt: t + 3, outcome: 'ok', leaseUntil: t + 30_000 }));
      lines.push(JSON.stringify({ type: 'ack', process: `worker-${i % 16}`, id: `msg-${i}`, invokedAt: t + 4, completedAt: t + 5, outcome: 'ok' }));
    }
    writeFileSync(join(cwd, 'h-lanes.jsonl'), lines.join('\n'));
    expect((await dynoq(['report', 'h-lanes.jsonl', '--html', 'h-lanes.html'], cwd)).code).toBe(0);
    const { data } = pageOf('h-lanes.html');
    expect(data.lanes).toHaveLength(24);
    expect(data.drawn.total).toBe(n);
    expect(data.drawn.shown).toBeLessThan(n);
    expect(new Set(data.history.map((o) => o.actor))).toEqual(new Set(data.lanes));
  }, 60_000);
});
