import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderHtmlReport } from '../../src/report/html-report.js';
import { parseSimConfig } from '../../src/sim/run/config.js';
import { runSimulation, SIM_EPOCH, type SimResult } from '../../src/sim/run/run.js';
import { loadScenario, scenarioConfig } from '../../src/sim/run/scenario.js';
import { browserAvailable, CHROMIUM, launchChromium } from '../support/browser.js';


function html(result: SimResult, title: string): string {
  return renderHtmlReport({
    title,
    config: result.config,
    history: result.history,
    faults: result.config.faults.map((fault) => ({ t: SIM_EPOCH + fault.at, fault })),
    report: result.report,
    start: SIM_EPOCH,
    livenessStart: result.livenessStart,
    end: SIM_EPOCH + result.simulatedMs,
    traceHash: result.traceHash,
  });
}

describe.runIf(browserAvailable)(`HTML report in a real browser (${CHROMIUM} via playwright-core)`, () => {
  let browser: Browser;
  let dir: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'dynoq-report-'));
    browser = await launchChromium();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  async function open(result: SimResult, name: string) {
    const file = join(dir, `${name}.html`);
    writeFileSync(file, html(result, name));
    const page = await browser.newPage({ viewport: { width: 1400, height: 800 } });
    const requests: string[] = [];
    page.on('request', (r) => {
      if (!r.url().startsWith('file:')) requests.push(r.url());
    });
    await page.goto(`file://${file}`);
    await page.waitForFunction(() => (window as unknown as { __dynoqReady?: boolean }).__dynoqReady === true);
    return { page, requests };
  }

  it('draws lanes, fault bands and violations of a real failure, and a click focuses the message', async () => {
    // (zone-failover-mid-pop no longer fails since Dynomite's reply voting is modelled: a primary crash does)
    const result = await runSimulation(scenarioConfig(loadScenario(join(import.meta.dirname, '../../scenarios/primary-crash-loses-pushes.json'))));
    const { page, requests } = await open(result, 'primary-crash');
    const lanes = await page.locator('.lane-label').allTextContents();
    expect(lanes).toEqual(expect.arrayContaining(['producer-0', 'consumer-0', 'primary-a', 'replica-b', 'replica-c']));
    expect(await page.locator('.fault-band[data-kind="crash-node"]').count()).toBe(1);
    const violations = result.report.violations.filter((v) => v.kind !== 'duplicate');
    expect(violations.length).toBeGreaterThan(0);
    expect(await page.locator('.violation').count()).toBe(violations.length);
    const painted = await page.evaluate(() => {
      const c = document.getElementById('canvas') as HTMLCanvasElement;
      const d = c.getContext('2d')!.getImageData(0, 0, c.width, c.height).data;
      let colored = 0;
      for (let i = 0; i < d.length; i += 4) if (d[i]! !== d[i + 1]! || d[i + 1]! !== d[i + 2]!) colored++;
      return colored;
    });
    expect(painted).toBeGreaterThan(1_000);

    const target = page.locator('.violation').nth(1);
    const id = (await target.getAttribute('data-id'))!;
    await target.click();
    expect(await page.locator('#focused-id').textContent()).toBe(id);
    expect(await page.locator('#filter').inputValue()).toBe(id);
    expect(await page.locator('.violation.active').count()).toBeGreaterThan(0);
    expect(await page.locator('.violation.active').first().getAttribute('data-id')).toBe(id);
    if (process.env.DYNOQ_SCREENSHOT) await page.screenshot({ path: process.env.DYNOQ_SCREENSHOT });
    expect(requests).toEqual([]);
    await page.close();
  }, 120_000);

  it('stays usable with 10,000 messages: it loads, filters and zooms', async () => {
    const result = await runSimulation(
      parseSimConfig({
        seed: 'big',
        topology: { zones: ['a', 'b', 'c'] },
        workload: { messages: 10_000, producers: 3, rate: 5_000, batch: 100, consumers: 6, consumerBatch: 50, processingMeanMs: 0.1 },
        phases: { safetyMs: 2_000, livenessMs: 60_000 },
      }),
    );
    expect(result.report.pushed).toBe(10_000);
    const { page } = await open(result, 'big');
    await page.fill('#filter', 'm4242');
    expect(await page.locator('#focused-id').textContent()).toBe('m4242');
    const drawMs = await page.evaluate(() => {
      const t = performance.now();
      (document.getElementById('zoom-in') as HTMLButtonElement).click();
      (document.getElementById('reset') as HTMLButtonElement).click();
      return performance.now() - t;
    });
    console.info(`10,000-message report: zoom + full redraw took ${drawMs.toFixed(0)} ms`);
    expect(await page.locator('#focused-id').textContent()).toBe('none');
    await page.close();
  }, 120_000);
});
