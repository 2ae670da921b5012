import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { exploreCommand } from '../../src/cli/commands/explore.js';
import { replayCommand } from '../../src/cli/commands/replay.js';
import { loadScenario } from '../../src/sim/scenario.js';

describe('dynoq explore', () => {
  const out = mkdtempSync(join(tmpdir(), 'dynoq-explore-'));
  afterAll(() => rmSync(out, { recursive: true, force: true }));

  it('shrinks each violation it finds into a scenario file that replays it', async () => {
    // Seed "explore" is known (measured) to find violations within its first five runs.
    expect(await exploreCommand({ runs: 5, seed: 'explore', out })).toBe(1);
    const files = readdirSync(out).filter((f) => f.endsWith('.json'));
    expect(files.length).toBeGreaterThan(0);
    for (const f of files) {
      const s = loadScenario(join(out, f));
      expect(s.expect.violate.length).toBeGreaterThan(0);
      expect(s.workload.consumers).toBeGreaterThanOrEqual(s.topology.zones.length);
    }
    expect(await replayCommand(files.map((f) => join(out, f)))).toBe(0);
  }, 120_000);
});
