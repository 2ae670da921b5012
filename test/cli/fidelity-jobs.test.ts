import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { PROPERTY_NAMES } from '../../src/model/properties.js';
import { FIDELITY_ROWS, FidelityPartsError, sumFidelity, type FidelityMeasurement, type RowFidelity, type Tally } from '../../src/real/twin/fidelity.js';
import { dynoq } from '../support/dynoq-cli.js';
import { redisRequired, redisServerBinary } from '../support/redis-server.js';

const available = redisServerBinary() !== null;
if (!available && redisRequired) throw new Error('REQUIRE_REDIS=1 but redis-server is not installed');

const tally = (violated: number, exercised: number): Tally => Object.fromEntries(PROPERTY_NAMES.map((p) => [p, { violated, exercised }])) as Tally;
const part = (name: string, simSeeds: number, real: Tally, realRuns: number): RowFidelity => ({
  row: name,
  description: 'd',
  simSeeds,
  simulated: tally(simSeeds > 0 ? 1 : 0, simSeeds),
  simulatedTwins: tally(0, realRuns),
  perSeed: Object.fromEntries(PROPERTY_NAMES.map((p) => [p, { both: 0, simOnly: 0, realOnly: real[p].violated, neither: realRuns - real[p].violated }])) as RowFidelity['perSeed'] & object,
  real,
  realRuns,
  skipped: simSeeds > 0 ? 2 : 0,
  replicasEqual: null,
  faultErrors: realRuns > 0 ? [`seed-${simSeeds}: x`] : [],
  realSeconds: 10 * realRuns,
});
const measured = (rows: RowFidelity[], realRuns = 4): FidelityMeasurement => ({ rows, options: { realRuns, simSeeds: 40, budgetMs: 60_000 } });

describe('a fidelity run split between processes', () => {
  const cwd = mkdtempSync(join(tmpdir(), 'dynoq-fidelity-jobs-'));
  afterAll(() => rmSync(cwd, { recursive: true, force: true }));
  const [first, second] = [FIDELITY_ROWS[0]!.name, FIDELITY_ROWS[1]!.name];

  it('the shares add up row by row: seeds, runs, tallies, seed-by-seed pairs and notes (the simulated seeds counted once)', () => {
    const a = measured([part(first, 40, tally(1, 2), 2), part(second, 0, tally(0, 1), 1)]);
    const b = measured([part(first, 0, tally(2, 2), 2), part(second, 40, tally(0, 0), 0)]);
    const sum = sumFidelity([a, b]);
    expect(sum.rows.map((r) => r.row)).toEqual([first, second]);
    const [r1, r2] = sum.rows as [RowFidelity, RowFidelity];
    expect([r1.simSeeds, r1.realRuns, r1.skipped, r1.realSeconds]).toEqual([40, 4, 2, 40]);
    expect(r1.real.atLeastOnce).toEqual({ violated: 3, exercised: 4 });
    expect(r1.simulated.atLeastOnce).toEqual({ violated: 1, exercised: 40 });
    expect(r1.perSeed!.atLeastOnce).toEqual({ both: 0, simOnly: 0, realOnly: 3, neither: 1 });
    expect(r1.faultErrors).toEqual(['seed-40: x', 'seed-0: x']);
    expect([r2.simSeeds, r2.realRuns]).toEqual([40, 1]);
    expect(() => sumFidelity([a, measured([], 20)])).toThrow(FidelityPartsError);
    expect(() => sumFidelity([])).toThrow(FidelityPartsError);
  });

  it('--merge writes the table of the shares added up, keeping rows no share measured from --data; bad combinations are usage errors', async () => {
    const third = FIDELITY_ROWS[2]!.name;
    writeFileSync(join(cwd, 'F.json'), JSON.stringify(measured([part(third, 40, tally(0, 4), 4)])));
    writeFileSync(join(cwd, 'a.json'), JSON.stringify(measured([part(first, 40, tally(1, 2), 2)])));
    writeFileSync(join(cwd, 'b.json'), JSON.stringify(measured([part(first, 0, tally(2, 2), 2)])));
    const r = await dynoq(['fidelity', '--merge', 'a.json', 'b.json', '--out', 'F.md'], cwd);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const data = JSON.parse(readFileSync(join(cwd, 'F.json'), 'utf8')) as FidelityMeasurement;
    expect(data.rows.map((x) => [x.row, x.realRuns])).toEqual([[first, 4], [third, 4]]);
    expect(readFileSync(join(cwd, 'F.md'), 'utf8')).toContain(`## ${first}`);
    // --only: the shares' other rows are left out, and the earlier data keeps its own
    writeFileSync(join(cwd, 'd.json'), JSON.stringify(measured([part(first, 0, tally(2, 2), 2), part(third, 0, tally(0, 9), 9)])));
    expect((await dynoq(['fidelity', '--merge', 'a.json', 'd.json', '--only', first, '--out', 'F.md'], cwd)).code).toBe(0);
    const picked = JSON.parse(readFileSync(join(cwd, 'F.json'), 'utf8')) as FidelityMeasurement;
    expect(picked.rows.map((x) => [x.row, x.realRuns])).toEqual([[first, 4], [third, 4]]);
    writeFileSync(join(cwd, 'c.json'), JSON.stringify(measured([part(first, 0, tally(2, 2), 2)], 20)));
    const other = await dynoq(['fidelity', '--merge', 'a.json', 'c.json', '--out', 'G.md'], cwd);
    expect(other.code).toBe(2);
    expect(other.stderr).toMatch(/--merge: parts measured with other settings/);
    expect((await dynoq(['fidelity', '--merge', 'a.json', '--jobs', '2', '--out', 'G.md'], cwd)).code).toBe(2);
  }, 60_000);

  it('--merge of the data alone renders the page again, checked against GUARANTEES.json beside --out or --published; a bad published file is a usage error', async () => {
    writeFileSync(join(cwd, 'R.json'), JSON.stringify(measured([part(first, 40, tally(0, 4), 4)])));
    const none = await dynoq(['fidelity', '--merge', 'R.json', '--data', 'R.json', '--out', 'R.md'], cwd);
    expect(none.code).toBe(0);
    expect(readFileSync(join(cwd, 'R.md'), 'utf8')).not.toContain('## The published verdicts');
    const published = readFileSync(new URL('../../docs/GUARANTEES.json', import.meta.url), 'utf8');
    writeFileSync(join(cwd, 'P.json'), published);
    expect((await dynoq(['fidelity', '--merge', 'R.json', '--data', 'R.json', '--published', 'P.json', '--out', 'R.md'], cwd)).code).toBe(0);
    expect(readFileSync(join(cwd, 'R.md'), 'utf8')).toContain('## The published verdicts and their real twins');
    expect(readFileSync(join(cwd, 'R.md'), 'utf8')).toMatch(new RegExp(`## ${first.replace(/[/+]/g, '\\$&')}[^#]*\\*\\*Published:\\*\\* yes \\(`));
    writeFileSync(join(cwd, 'bad.json'), '{"format": 1}');
    const bad = await dynoq(['fidelity', '--merge', 'R.json', '--data', 'R.json', '--published', 'bad.json', '--out', 'R.md'], cwd);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--published: bad\.json/);
    expect((await dynoq(['fidelity', '--merge', 'R.json', '--data', 'R.json', '--published', 'missing.json', '--out', 'R.md'], cwd)).code).toBe(2);
  }, 60_000);

  it.runIf(available)('--jobs 2: two processes share the real seeds (each seed run once), the row is simulated once, and the table adds them up', async () => {
    const row = 'primary-replica/atomic/none/full';
    const r = await dynoq(['fidelity', '--jobs', '2', '--runs', '2', '--sim-seeds', '2', '--only', `${row},nothing-else`, '--out', 'J.md'], cwd);
    expect(r.code).toBe(0);
    const ran = [...r.stderr.matchAll(/\[job (\d)\] real (\S+) seed (\S+):/g)].map((m) => m[3]);
    expect(ran.sort()).toEqual([`fidelity-${row}-0`, `fidelity-${row}-1`]);
    expect(r.stderr.match(/\[job \d\] simulated /g)).toHaveLength(1);
    const data = JSON.parse(readFileSync(join(cwd, 'J.json'), 'utf8')) as FidelityMeasurement;
    expect(data.rows.map((x) => [x.row, x.simSeeds, x.realRuns])).toEqual([[row, 2, 2]]);
    expect(data.rows[0]!.real.atLeastOnce.exercised).toBe(2);
  }, 180_000);
});
