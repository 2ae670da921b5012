import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROPERTIES, PROPERTY_NAMES } from '../../src/model/properties.js';
import { renderGuaranteesHtml } from '../../src/report/guarantees-html.js';
import { guaranteesData } from '../../src/sim/campaign/guarantees-data.js';
import { browserAvailable, CHROMIUM, launchChromium } from '../support/browser.js';
import { tableRow } from '../support/guarantee-rows.js';

/** Four configurations: both topologies, both modes, two fault draws; at-least-once broken in two. */
const ROWS = [
  tableRow('dynomite/DC_QUORUM/atomic/none', { atLeastOnce: 0 }),
  tableRow('dynomite/DC_QUORUM/legacy/node-crash', { atLeastOnce: 7, noDoublePop: 2 }),
  tableRow('primary-replica/atomic/node-crash', { atLeastOnce: 3 }),
  tableRow('primary-replica/legacy/none', {}),
];
const data = guaranteesData({ rows: ROWS, command: 'test', timing: null, seeds: 10, scenarios: [], advise: (m) => (m.kind.startsWith('lost') ? 'persist the primary' : null) });

describe.runIf(browserAvailable)(`the guarantees page in a real browser (${CHROMIUM} via playwright-core)`, () => {
  let browser: Browser;
  let dir: string;
  let page: Page;
  const requests: string[] = [];
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'dynoq-guarantees-'));
    const file = join(dir, 'guarantees.html');
    writeFileSync(file, renderGuaranteesHtml(data));
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1400, height: 800 } });
    page.on('request', (r) => {
      if (!r.url().startsWith('file:')) requests.push(r.url());
    });
    await page.goto(`file://${file}`);
    await page.waitForFunction(() => (window as unknown as { __dynoqReady?: boolean }).__dynoqReady === true);
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const visible = (column: number) =>
    page.$$eval(`#detail tbody tr:not([hidden])`, (trs, i) => trs.map((tr) => (tr as HTMLTableRowElement).cells[i]!.textContent!), column);
  const select = async (filter: string, value: string) => {
    await page.selectOption(`#filter-${filter}`, value);
  };
  const header = (label: string) => page.locator('#detail th', { hasText: label }).first();

  it('shows one detail line per configuration and property, and the matrix with a recommended line per topology', async () => {
    expect(await page.locator('#detail tbody tr').count()).toBe(ROWS.length * PROPERTY_NAMES.length);
    expect(await page.locator('#shown').textContent()).toBe(String(ROWS.length * PROPERTY_NAMES.length));
    expect(await page.locator('#matrix tbody tr').count()).toBe(4);
    expect(await page.locator('#matrix tr.recommended').count()).toBe(2);
    expect(await page.locator('#matrix tr.recommended').first().getAttribute('data-setup')).toBe('dynomite/DC_QUORUM/atomic');
    expect(await page.locator('#advice li').allTextContents()).toEqual(['persist the primary']);
    expect(requests).toEqual([]);
  });

  it('filters by topology, mode, fault and property, together', async () => {
    await select('topology', 'primary-replica');
    expect(await visible(0)).toHaveLength(2 * PROPERTY_NAMES.length);
    expect(new Set(await visible(1))).toEqual(new Set(['primary-replica']));
    await select('mode', 'atomic');
    expect(new Set(await visible(0))).toEqual(new Set(['primary-replica/atomic/node-crash']));
    await select('property', PROPERTIES.atLeastOnce.label);
    expect(await visible(7)).toEqual(['violated']);
    expect(await page.locator('#shown').textContent()).toBe('1');
    await select('fault', 'no faults');
    expect(await visible(0)).toEqual([]);
    for (const f of ['topology', 'mode', 'fault']) await select(f, '');
    expect(await visible(0)).toHaveLength(ROWS.length);
    await select('property', '');
  });

  it('sorts by a numeric column both ways, and by a text column', async () => {
    await header('violated runs').click();
    const up = (await visible(8)).map(Number);
    expect(up).toEqual([...up].sort((a, b) => a - b));
    await header('violated runs').click();
    const down = (await visible(8)).map(Number);
    expect(down[0]).toBe(7);
    expect(down).toEqual([...down].sort((a, b) => b - a));
    expect(await header('violated runs').getAttribute('aria-sort')).toBe('descending');
    await header('configuration').click();
    const names = await visible(0);
    expect(names).toEqual([...names].sort((a, b) => a.localeCompare(b)));
    // Sorting keeps a filter.
    await select('verdict', 'violated');
    expect(await visible(0)).toEqual(['dynomite/DC_QUORUM/legacy/node-crash', 'dynomite/DC_QUORUM/legacy/node-crash', 'primary-replica/atomic/node-crash']);
  });
});
