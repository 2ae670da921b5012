import { describe, expect, it } from 'vitest';
import { DOC_TABLES, pageText, withTable } from '../../scripts/doc-tables.js';
import { FAULT_FAMILIES, FAULT_FAMILY_NAMES, kindsOf } from '../../src/sim/faults/index.js';
import { bandCss } from '../../src/report/html-report.js';
import { PROPERTY_NAMES, PROPERTY_TABLE, PROPERTIES, VIOLATION_KIND_NAMES, VIOLATION_KINDS, WORST_FIRST } from '../../src/model/properties.js';
import type { PropertyModule } from '../../src/model/properties/judging.js';

describe('generated doc tables', () => {
  it.each(DOC_TABLES.map((t) => [t.page, t.name, t] as const))('%s: the %s table is what its registry says (npm run docs:tables writes it)', (_page, _name, t) => {
    const text = pageText(t.page);
    expect(withTable(text, t.name, t.table())).toBe(text);
  });

  it('a page that drifted from its registry is caught', () => {
    const t = DOC_TABLES[0]!;
    const drifted = withTable(pageText(t.page), t.name, t.table().replace('Dynomite only', 'Dynomite and primary-replica'));
    expect(withTable(drifted, t.name, t.table())).not.toBe(drifted);
  });

  it('a property table that drifted from the property modules is caught', () => {
    const t = DOC_TABLES.find((x) => x.name === 'properties')!;
    const drifted = withTable(pageText(t.page), t.name, t.table().replace('**resurrection**', '**resurrected**'));
    expect(drifted).not.toBe(pageText(t.page));
    expect(withTable(drifted, t.name, t.table())).not.toBe(drifted);
  });
});

describe('every property has its facts', () => {
  it('each property module names itself, says what it means and when it is exposed, and has a row and a judge', () => {
    for (const p of PROPERTY_TABLE as readonly PropertyModule[]) {
      expect(PROPERTIES[p.name as keyof typeof PROPERTIES], p.name).toBe(p);
      expect(p.means.length, p.name).toBeGreaterThan(0);
      expect(p.exercisedWhen.length, p.name).toBeGreaterThan(0);
      expect(p.brokenBy ?? p.brokenInSimulationsBy, p.name).toBeTruthy();
      expect(Object.keys(p.kinds).length, p.name).toBeGreaterThan(0);
    }
    expect(PROPERTY_NAMES).toEqual(PROPERTY_TABLE.map((p) => p.name));
  });

  it('every kind has one property (or none, allowed) and a severity rank of its own (no two kinds tie)', () => {
    const ranks = VIOLATION_KIND_NAMES.map((k) => VIOLATION_KINDS[k].rank);
    expect(new Set(ranks).size).toBe(ranks.length);
    expect(WORST_FIRST).toEqual(VIOLATION_KIND_NAMES);
    for (const p of PROPERTY_TABLE as readonly PropertyModule[]) for (const k of Object.keys(p.kinds)) expect(VIOLATION_KINDS[k as keyof typeof VIOLATION_KINDS].breaks, k).toBe(p.name);
  });
});

describe('every fault family has its facts', () => {
  it('every kind of every family has a band colour in the HTML report', () => {
    const html = bandCss();
    for (const f of FAULT_FAMILY_NAMES) {
      expect(FAULT_FAMILIES[f].bandColour, f).toMatch(/^#[0-9a-f]{6}$/);
      for (const kind of kindsOf(f)) expect(html, kind).toMatch(new RegExp(`\\.band-${kind}[ ,][^}]*\\{ background: ${FAULT_FAMILIES[f].bandColour}; \\}`));
    }
  });
});
