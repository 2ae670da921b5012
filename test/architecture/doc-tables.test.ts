import { describe, expect, it } from 'vitest';
import { DOC_TABLES, pageText, withTable } from '../../scripts/doc-tables.js';
import { FAULT_FAMILIES, FAULT_FAMILY_NAMES, kindsOf } from '../../src/sim/faults/index.js';
import { bandCss } from '../../src/report/html-report.js';

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
