// Writes the generated tables of docs/*.md from the registries they describe (npm run docs:tables);
// test/architecture/doc-tables.test.ts fails while a page differs from what this would write.
import { readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { exposureList, propertyTable, severityList } from '../src/model/properties/docs-table.js';
import { faultFamilyTable } from '../src/sim/faults/docs-table.js';

/** Each generated table: the page, the marker's name, and the table as its registry says it now. */
export const DOC_TABLES: readonly { readonly page: string; readonly name: string; readonly table: () => string }[] = [
  { page: 'docs/SCENARIOS.md', name: 'fault families', table: faultFamilyTable },
  { page: 'docs/CHECKER.md', name: 'properties', table: propertyTable },
  { page: 'docs/CHECKER.md', name: 'severity', table: severityList },
  { page: 'docs/CHECKER.md', name: 'exposure', table: exposureList },
];

const root = resolve(import.meta.dirname, '..');

function markers(name: string): [string, string] {
  return [`<!-- generated: ${name} (npm run docs:tables) -->`, `<!-- end generated: ${name} -->`];
}

/** The page's text with the table between its markers replaced; a page without the markers is an error. */
export function withTable(text: string, name: string, table: string): string {
  const [begin, end] = markers(name);
  const from = text.indexOf(begin);
  const to = text.indexOf(end);
  if (from < 0 || to < from) throw new Error(`no "${begin}" … "${end}" markers`);
  return `${text.slice(0, from + begin.length)}\n${table}\n${text.slice(to)}`;
}

export function pageText(page: string): string {
  return readFileSync(resolve(root, page), 'utf8');
}

if (process.argv[1] && resolve(process.argv[1]) === resolve(import.meta.filename)) {
  for (const t of DOC_TABLES) {
    const text = pageText(t.page);
    const next = withTable(text, t.name, t.table());
    if (next !== text) writeFileSync(resolve(root, t.page), next);
    console.log(`${next === text ? 'unchanged' : 'written  '} ${t.page} (${t.name})`);
  }
}
