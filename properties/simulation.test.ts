import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROPERTY_NAMES, VIOLATION_KINDS } from '../src/model/properties.js';
import { parseSimConfig } from '../src/sim/run/config.js';
import { CONFIGURATIONS, configurationRun } from '../src/sim/run/configurations.js';
import { runSimulation } from '../src/sim/run/run.js';
import { parseGuaranteesData } from '../src/sim/campaign/guarantees-data.js';

const SCALE = Number(process.env.DYNOQ_PROPERTY_SCALE ?? 1);
const SEEDS = Math.max(1, Math.round(4 * SCALE));

/**
 * The claims are the fault-free rows that docs/GUARANTEES.json measured as holding every property:
 * they must hold on other seeds too; a failure here is a finding that the published claim was wrong.
 */
const file = join(import.meta.dirname, '..', 'docs', 'GUARANTEES.json');
const table = parseGuaranteesData(readFileSync(file, 'utf8'), file);
const CLAIMS = CONFIGURATIONS.filter((c) => {
  if (c.faults !== 'none') return false;
  const row = table.rows.find((r) => r.name === c.name);
  return row !== undefined && PROPERTY_NAMES.every((p) => row.cells[p].violated === 0);
});

describe('simulation: the published claims, re-checked on other seeds', () => {
  it('the table names fault-free rows that held everywhere', () => {
    expect(CLAIMS.length).toBeGreaterThan(0);
  });

  it.each(CLAIMS.map((c) => c.name))('%s keeps every property', async (name) => {
    const named = CONFIGURATIONS.find((c) => c.name === name)!;
    for (let i = 0; i < SEEDS; i++) {
      const seed = `prop-${i}`;
      const r = await runSimulation(parseSimConfig(configurationRun(named, seed)));
      const first = r.report.violations.find((v) => VIOLATION_KINDS[v.kind].breaks !== null);
      for (const p of PROPERTY_NAMES) {
        expect(r.report.properties[p], `${p} at seed ${seed}: replay with dynoq sim --configuration ${name} --seed ${seed} (${first?.detail})`).toBe(true);
      }
    }
  }, 120_000);

  it('every configuration of the table runs and reports consistently', async () => {
    for (const named of CONFIGURATIONS) {
      const r = await runSimulation(parseSimConfig(configurationRun(named, 'prop-0')));
      for (const p of PROPERTY_NAMES) {
        const broken = r.report.violations.some((v) => VIOLATION_KINDS[v.kind].breaks === p);
        expect(r.report.properties[p], `${named.name} ${p}`).toBe(!broken);
      }
    }
  }, 300_000);
});
