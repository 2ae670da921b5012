/**
 * The size of an HTML report and how soon headless Chromium paints it and has it ready:
 *   npx tsx bench/report-page.ts PAGE.html [PAGE2.html …]
 * First paint: the browser's first-contentful-paint; ready: the page's script ran (window.__dynoqReady).
 * Each page is loaded three times in a fresh tab; the median is printed.
 */
import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import { chromium } from 'playwright-core';

const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', headless: true, args: ['--no-sandbox', '--disable-gpu'] });
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
for (const file of process.argv.slice(2)) {
  const paints: number[] = [];
  const readies: number[] = [];
  for (let i = 0; i < 3; i++) {
    const page = await browser.newPage({ viewport: { width: 1400, height: 800 } });
    const t0 = Date.now();
    await page.goto(`file://${resolve(file)}`, { timeout: 600_000 });
    await page.waitForFunction(() => (window as unknown as { __dynoqReady?: boolean }).__dynoqReady === true, undefined, { timeout: 600_000 });
    readies.push(Date.now() - t0);
    const fcp = await page.evaluate(() => performance.getEntriesByType('paint').find((e) => e.name === 'first-contentful-paint')?.startTime ?? -1);
    paints.push(fcp);
    await page.close();
  }
  const bytes = statSync(file).size;
  console.log(`${file}: ${bytes.toLocaleString('en')} bytes (${(bytes / 1e6).toFixed(1)} MB) · first contentful paint ${median(paints).toFixed(0)} ms · ready ${median(readies)} ms (median of 3; paints ${paints.map((p) => p.toFixed(0)).join(', ')})`);
}
await browser.close();
