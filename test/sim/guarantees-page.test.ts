import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { renderGuaranteesHtml } from '../../src/report/guarantees-html.js';
import { parseGuaranteesData } from '../../src/sim/campaign/guarantees-data.js';
import { guaranteesPage } from '../../src/sim/campaign/guarantees-page.js';

const docs = join(import.meta.dirname, '..', '..', 'docs');
const read = (f: string) => readFileSync(join(docs, f), 'utf8');

/** The published pages are what their data renders to (npm run guarantees:render writes them). */
describe('docs/GUARANTEES.md and docs/guarantees.html', () => {
  const data = parseGuaranteesData(read('GUARANTEES.json'), 'docs/GUARANTEES.json');

  it('are rendered from docs/GUARANTEES.json as it is now', () => {
    expect(read('GUARANTEES.md')).toBe(guaranteesPage(data));
    expect(read('guarantees.html')).toBe(renderGuaranteesHtml(data));
  });

  it('the page is read in two minutes: at most 400 lines, opening with the decision matrix', () => {
    const md = read('GUARANTEES.md');
    expect(md.split('\n').length).toBeLessThanOrEqual(400);
    const headings = md.split('\n').filter((l) => l.startsWith('## '));
    expect(headings[0]).toBe('## The decision matrix');
    expect(headings[1]).toBe('## What to use');
  });
});
