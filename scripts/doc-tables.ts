// Writes the generated tables of README.md and docs/*.md from the registries and data they describe (npm run docs:tables);
// test/architecture/doc-tables.test.ts fails while a page differs from what this would write.
import { readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { exposureList, propertyTable, severityList } from '../src/model/properties/docs-table.js';
import { faultFamilyTable } from '../src/sim/faults/docs-table.js';
import { parseGuaranteesData } from '../src/sim/campaign/guarantees-data.js';
import { whatToUseMarkdown } from '../src/sim/campaign/guarantees-page.js';
import { gateFamiliesComment } from '../src/sim/campaign/gate-families.js';
import type { PropertyName } from '../src/model/properties.js';
import type { FaultDraw } from '../src/sim/run/configurations.js';

/** Each generated table: the page, the marker's name, and the table as its registry says it now. */
export const DOC_TABLES: readonly { readonly page: string; readonly name: string; readonly table: () => string }[] = [
  { page: 'docs/SCENARIOS.md', name: 'fault families', table: faultFamilyTable },
  { page: 'docs/CHECKER.md', name: 'properties', table: propertyTable },
  { page: 'docs/CHECKER.md', name: 'severity', table: severityList },
  { page: 'docs/CHECKER.md', name: 'exposure', table: exposureList },
  // From the published measurement (npm run guarantees and guarantees:render run this script after it).
  { page: 'README.md', name: 'what to use', table: () => whatToUseMarkdown(publishedTable()) },
  { page: 'examples/github-actions-gate.yml', name: 'gate families', table: () => gateFamiliesComment(publishedTable(), gateOf('examples/github-actions-gate.yml')) },
];

function publishedTable() {
  return parseGuaranteesData(pageText('docs/GUARANTEES.json'), 'docs/GUARANTEES.json');
}

/** The gate a workflow runs: its explore line's --require and --faults, and the topology of its --from scenario. */
function gateOf(workflow: string): { topology: string; require: PropertyName[]; faults: FaultDraw[] } {
  const line = pageText(workflow).split('\n').find((l) => l.includes('dynoq explore'));
  const flag = (name: string) => new RegExp(`--${name} (\\S+)`).exec(line ?? '')?.[1];
  const from = flag('from');
  if (!from) throw new Error(`${workflow}: no explore line with --from`);
  const scenario = JSON.parse(pageText(from)) as { topology?: { kind?: string } };
  return { topology: scenario.topology?.kind ?? 'dynomite', require: (flag('require')?.split(',') ?? []) as PropertyName[], faults: (flag('faults')?.split(',') ?? []) as FaultDraw[] };
}

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
  // A marker inside a comment line (`# <!-- … -->` in a workflow file) keeps its comment prefix.
  const prefix = text.slice(text.lastIndexOf('\n', to) + 1, to);
  return `${text.slice(0, from + begin.length)}\n${table}\n${prefix}${text.slice(to)}`;
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
