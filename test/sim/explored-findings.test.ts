import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runSimulation } from '../../src/sim/run/run.js';
import { loadScenario, scenarioConfig } from '../../src/sim/run/scenario.js';

/** Scenarios found by exploring the full profile on which the checker was wrong (the queue was right). */
const DIR = join(import.meta.dirname, '..', 'fixtures', 'findings');
const run = async (name: string) => runSimulation(scenarioConfig(loadScenario(join(DIR, `${name}.json`))));

describe('explored findings the checker had wrong', () => {
  it('a remove that completes while a pop of the same id is in flight ends the lease: the re-created message taken by another consumer is no double pop', async () => {
    const { report } = await run('remove-during-pop-double-pop');
    expect(report.counts['double-pop']).toBe(0);
    expect(report.properties.noDoublePop).toBe(true);
    // m2 was still delivered twice (two lives): reported, allowed
    expect(report.violations.some((v) => v.kind === 'duplicate' && v.id === 'm2')).toBe(true);
  }, 60_000);

  it('a lease that ran out while its shard\'s consumers were down, re-delivered late only because the restarted consumers were busy with more urgent messages, is no slow recovery', async () => {
    const { report } = await run('client-crash-unack-recovery');
    // The reaper re-queued m20 at its first run after the restart; both consumers of shard b then
    // worked through more urgent messages without a pop waiting until it was taken.
    expect(report.counts['slow-recovery']).toBe(0);
    expect(report.properties.unackRecovery).toBe(true);
    expect(report.exercised.unackRecovery).toBe(true);
  }, 60_000);
});
