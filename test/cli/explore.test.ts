import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CliError } from '../../src/cli/cli-error.js';
import { exploreCommand } from '../../src/cli/commands/explore.js';
import { mergeCommand } from '../../src/cli/commands/merge.js';
import { replayCommand } from '../../src/cli/commands/replay.js';
import { loadScenario } from '../../src/sim/run/scenario.js';

const lines = (file: string) =>
  readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { seed: string; failing: string[]; traceHash: string });
const bySeed = (xs: { seed: string }[]) => [...xs].sort((a, b) => a.seed.localeCompare(b.seed, 'en', { numeric: true }));

describe('dynoq explore', () => {
  const root = mkdtempSync(join(tmpdir(), 'dynoq-explore-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  const out = join(root, 'one');

  it('shrinks each violation it finds into a scenario file that replays it, one result line per seed', async () => {
    // Seed "explore" is known (measured) to find violations within its first six runs.
    expect(await exploreCommand({ runs: 6, seed: 'explore', out })).toBe(1);
    const files = readdirSync(out).filter((f) => f.endsWith('.json'));
    expect(files.length).toBeGreaterThan(0);
    for (const f of files) {
      const s = loadScenario(join(out, f));
      expect(s.expect.violate.length).toBeGreaterThan(0);
      expect(s.workload.consumers).toBeGreaterThanOrEqual(s.topology.zones.length);
    }
    expect(await replayCommand(files.map((f) => join(out, f)))).toBe(0);
    const results = lines(join(out, 'explore.jsonl'));
    expect(results.map((r) => r.seed)).toEqual(['explore-0', 'explore-1', 'explore-2', 'explore-3', 'explore-4', 'explore-5']);
    expect(results.filter((r) => r.failing.length > 0).length).toBe(files.length);
  }, 180_000);

  it('--time covers shrinking: u6-0 (an at-least-once finding, seconds of shrinking unbounded) stops at the budget and says so', async () => {
    const timed = join(root, 'timed');
    const started = Date.now();
    // On the twins: the seed's first run must finish inside the budget for shrinking to be cut.
    expect(await exploreCommand({ time: 1_500, seed: 'u6', out: timed, scripts: 'twin' })).toBe(1);
    // The budget plus one check between events of the simulation running at it.
    expect(Date.now() - started).toBeLessThan(8_000);
    const [first] = readFileSync(join(timed, 'explore.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { seed: string; shrinkStoppedByTime?: boolean });
    expect([first?.seed, first?.shrinkStoppedByTime]).toEqual(['u6-0', true]);
  }, 60_000);

  it('--jobs 2 explores the same seeds with the same outcomes as one thread', async () => {
    const two = join(root, 'two');
    expect(await exploreCommand({ runs: 6, seed: 'explore', out: two, jobs: 2 })).toBe(1);
    expect(bySeed(lines(join(two, 'explore.jsonl')))).toEqual(lines(join(out, 'explore.jsonl')));
    expect(readdirSync(two).sort()).toEqual(readdirSync(out).sort());
  }, 180_000);

  it('shards split the seed space; dynoq merge puts them back together', async () => {
    const shards = join(root, 'shards');
    const first = await exploreCommand({ runs: 3, seed: 'explore', out: shards, shard: { index: 1, count: 2 } });
    const second = await exploreCommand({ runs: 3, seed: 'explore', out: shards, shard: { index: 2, count: 2 } });
    expect(lines(join(shards, 'explore-1-of-2.jsonl')).map((r) => r.seed)).toEqual(['explore-0', 'explore-2', 'explore-4']);
    expect(lines(join(shards, 'explore-2-of-2.jsonl')).map((r) => r.seed)).toEqual(['explore-1', 'explore-3', 'explore-5']);
    expect(Math.max(first, second)).toBe(1);

    const merged = join(root, 'merged');
    expect(mergeCommand([shards], { out: merged })).toBe(1);
    expect(lines(join(merged, 'explore.jsonl'))).toEqual(lines(join(out, 'explore.jsonl')));
    expect(readdirSync(merged).sort()).toEqual(readdirSync(out).sort());
  }, 180_000);

  it('merge refuses a line that is not an explore result, and two different traces of one seed', () => {
    const bad = join(root, 'bad.jsonl');
    writeFileSync(bad, '{"seed":"s-0","failing":["atLeastOnce"],"traceHash":"ab"}\n{"seed":"s-1","failing":["sometimes"],"traceHash":"cd"}\n');
    expect(() => mergeCommand([bad], { out: join(root, 'x') })).toThrow(CliError);
    expect(() => mergeCommand([bad], { out: join(root, 'x') })).toThrow(/bad\.jsonl:2: .*failing/);
    const a = join(root, 'a.jsonl');
    const b = join(root, 'b.jsonl');
    writeFileSync(a, '{"seed":"s-0","failing":[],"traceHash":"ab"}\n');
    writeFileSync(b, '{"seed":"s-0","failing":[],"traceHash":"cd"}\n');
    expect(() => mergeCommand([a, b], { out: join(root, 'y') })).toThrow(/different traces/);
    expect(mergeCommand([a], { out: join(root, 'z') })).toBe(0);
  });
});
