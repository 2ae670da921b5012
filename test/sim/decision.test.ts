import { describe, expect, it } from 'vitest';
import { decide } from '../../src/sim/campaign/decision.js';
import { SAME_RUNS, type SameRuns } from '../../src/sim/run/configurations.js';
import { guaranteesData, type GuaranteesData, type PublishedRow } from '../../src/sim/campaign/guarantees-data.js';
import { cellMark, guaranteesPage, whatToUse } from '../../src/sim/campaign/guarantees-page.js';
import { tableRow } from '../support/guarantee-rows.js';

const data = (rows: Parameters<typeof guaranteesData>[0]['rows'], extra: PublishedRow[] = []): GuaranteesData => {
  const d = guaranteesData({ rows, command: 'test', timing: null, seeds: 10, scenarios: [], advise: (m) => (m.kind.startsWith('lost') ? 'persist the primary' : null) });
  return { ...d, rows: [...d.rows, ...extra] };
};

describe('the decision matrix', () => {
  it('pools the workload profiles of a set-up and draw into one cell, with the worst rate or the widest bound', () => {
    const d = decide(data([tableRow('primary-replica/atomic/node-crash', { atLeastOnce: 2 }), tableRow('primary-replica/atomic/node-crash/full', { atLeastOnce: 6, noDoublePop: 1 }), tableRow('primary-replica/atomic/none', {}), tableRow('primary-replica/atomic/none/full', {})]));
    expect(d.lines).toHaveLength(1);
    const crash = d.lines[0]!.cells['node-crash']!;
    expect(crash.runs).toBe(20);
    expect(crash.counts.atLeastOnce).toEqual({ violated: 8, exercised: 20 });
    expect(crash.violated).toEqual(['atLeastOnce', 'noDoublePop']);
    expect(crash.rate).toBeCloseTo(8 / 20);
    expect(cellMark(crash)).toBe('✗ 40 % ALO·NDP');
    const none = d.lines[0]!.cells.none!;
    expect(none.verdict).toBe('held');
    expect(cellMark(none)).toBe('✓ ≤16 %');
    expect(d.runsPerCell).toEqual({ min: 20, max: 20 });
    expect(d.unsurvived).toEqual(['node-crash']);
  });

  it('recommends per topology the set-up holding every property under the most draws, then the most pairs held', () => {
    const d = decide(
      data([
        tableRow('primary-replica/legacy/none', { priorityOrder: 1 }),
        tableRow('primary-replica/legacy/client-crash', {}),
        tableRow('primary-replica/legacy/clock', {}),
        tableRow('primary-replica/atomic/none', {}),
        tableRow('primary-replica/atomic/client-crash', { atLeastOnce: 1 }),
        tableRow('primary-replica/atomic+server-time/clock', {}),
        tableRow('dynomite/DC_QUORUM/atomic/none', { deliveredPromptly: 1 }),
        tableRow('dynomite/DC_SAFE_QUORUM/atomic/none', { deliveredPromptly: 1, onTime: 1 }),
      ]),
    );
    // legacy holds 2 draws, atomic and server time 1 each; of those, atomic holds more (draw, property) pairs.
    expect(d.lines.filter((l) => l.facets.topology === 'primary-replica').map((l) => l.setup)).toEqual(['primary-replica/legacy', 'primary-replica/atomic', 'primary-replica/atomic+server-time']);
    // Nobody holds a draw on Dynomite: the most pairs held wins.
    expect(d.recommended.map((l) => l.setup)).toEqual(['primary-replica/legacy', 'dynomite/DC_QUORUM/atomic']);
    const page = guaranteesPage(data([tableRow('primary-replica/atomic/none', {}), tableRow('primary-replica/atomic/client-crash', { atLeastOnce: 1 })]));
    expect(page).toContain('### primary-replica: `primary-replica/atomic`');
    expect(page).toContain('- **client-crash** — at-least-once 1/10 runs. Why:');
    expect(page).toContain('[what to do: 1]');
    expect(page).toContain('1. persist the primary');
    expect(page.split('\n').length).toBeLessThanOrEqual(400);
  });

  it('ranks worst property first: losing nothing under one more draw beats being on time under more', () => {
    const d = decide(
      data([
        // client time: every property held under client pauses, but it loses messages under clock faults.
        tableRow('primary-replica/atomic/client-pause', {}),
        tableRow('primary-replica/atomic/clock', { atLeastOnce: 3 }),
        tableRow('primary-replica/atomic/consumer-clocks', { atLeastOnce: 2 }),
        // server time: late under every draw (no draw held whole), and loses nothing anywhere.
        tableRow('primary-replica/atomic+server-time/client-pause', { deliveredPromptly: 1 }),
        tableRow('primary-replica/atomic+server-time/clock', { deliveredPromptly: 2 }),
        tableRow('primary-replica/atomic+server-time/consumer-clocks', { deliveredPromptly: 4 }),
      ]),
    );
    const serverTime = d.lines.find((l) => l.setup === 'primary-replica/atomic+server-time')!;
    expect(serverTime.drawsHeld).toBe(0);
    expect(serverTime.drawsHeldBy.atLeastOnce).toBe(3);
    expect(d.recommended[0]!.setup).toBe('primary-replica/atomic+server-time');
    const page = guaranteesPage(data([tableRow('primary-replica/atomic/none', {}), tableRow('primary-replica/atomic/node-crash', { atLeastOnce: 3 })]));
    expect(page).toMatch(/Draws under which each property held, worst first: at-least-once 1, /);
  });

  it('a set-up with persistence shows, where it was not measured, the cells of the same set-up without it, marked', () => {
    const base = data([tableRow('primary-replica/atomic/none', {}), tableRow('primary-replica/atomic/node-crash', { atLeastOnce: 3 }), tableRow('primary-replica/atomic/client-crash', {})]);
    const crash = base.rows.find((r) => r.faults === 'node-crash')!;
    const aof: PublishedRow = { ...crash, name: 'primary-replica/atomic+aof-always/node-crash', setup: 'primary-replica/atomic+aof-always', facets: { ...crash.facets, persistence: 'AOF always' }, cells: base.rows[0]!.cells };
    const d = decide({ ...base, rows: [...base.rows, aof] });
    const line = d.lines.find((l) => l.setup === 'primary-replica/atomic+aof-always')!;
    expect(line.cells['node-crash']!.inheritedFrom).toBeUndefined();
    expect(line.cells['node-crash']!.verdict).toBe('held');
    expect(line.cells.none!.inheritedFrom).toBe('primary-replica/atomic');
    expect(cellMark(line.cells['client-crash'])).toBe('✓ ≤28 % ⁱ');
    // It holds what the base holds and the crash the base does not: recommended.
    expect(d.recommended[0]!.setup).toBe('primary-replica/atomic+aof-always');
    expect(whatToUse({ ...base, rows: [...base.rows, aof] }).topologies[0]!.loses).toEqual([]);
  });

  it('a draw measured by another set-up\'s row (the same runs) shows that set-up\'s cell, before the one without persistence', () => {
    const durable = 'primary-replica/atomic+server-time+durable';
    const base = data([tableRow(`${durable}/none`, {}), tableRow(`${durable}/process-crash`, { atLeastOnce: 3 })]);
    const crash = base.rows.find((r) => r.faults === 'process-crash')!;
    const withDisk = (setup: string, persistence: string, faults: 'process-crash' | 'power-loss', cells: PublishedRow['cells']): PublishedRow => ({ ...crash, name: `${setup}/${faults}`, setup, faults, facets: { ...crash.facets, persistence }, cells });
    const always = withDisk(`${durable}+aof-always`, 'AOF always', 'process-crash', base.rows[0]!.cells);
    const everysec = withDisk(`${durable}+aof-everysec`, 'AOF everysec', 'power-loss', crash.cells);
    const all = { ...base, rows: [...base.rows, always, everysec] };
    const same: SameRuns[] = [{ setup: everysec.setup, faults: 'process-crash', measuredAs: always.setup, why: 'the same traces' }];
    const cell = (sameRuns: readonly SameRuns[]) => decide(all, sameRuns).lines.find((l) => l.setup === everysec.setup)!.cells['process-crash']!;
    expect(cell(same)).toMatchObject({ verdict: 'held', inheritedFrom: always.setup });
    // without it the line would show the crash cell of the set-up without persistence: wrong
    expect(cell([])).toMatchObject({ verdict: 'violated', inheritedFrom: durable });
    // the published entries name rows that exist, and the page says which rows stand for two set-ups
    for (const s of SAME_RUNS) expect(s.setup).not.toBe(s.measuredAs);
    expect(guaranteesPage(all)).toContain('`primary-replica/atomic+server-time+durable+aof-everysec` under process-crash and process-crash-failover is `primary-replica/atomic+server-time+durable+aof-always`\'s row');
  });

  it('says which draws a recommended set-up was not measured under, among those its topology was', () => {
    const d = data([tableRow('primary-replica/atomic/none', {}), tableRow('primary-replica/legacy/none', { atLeastOnce: 1 }), tableRow('primary-replica/legacy/client-crash', { atLeastOnce: 1 }), tableRow('dynomite/DC_QUORUM/atomic/lag-spike', {})]);
    const w = whatToUse(d);
    expect(w.topologies.find((t) => t.topology === 'primary-replica')).toMatchObject({ setup: 'primary-replica/atomic', notMeasured: ['client-crash'] });
    const page = guaranteesPage(d);
    expect(page).toContain('Not measured under: client-crash (the table has no row for it: no verdict, counted as not held).');
    expect(page).toContain('No primary-replica set-up is measured under: lag-spike.');
  });
});
