import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reportCommand } from '../../src/cli/commands/report.js';
import { MAX_DRAWN_MESSAGES } from '../../src/report/html-report.js';
import { browserAvailable, launchChromium } from '../support/browser.js';

// Issue 27, item 4: `dynoq report HISTORY.jsonl --html` draws a judged history (not only a trace)
// on the same timeline, with a labelled time axis and plots over time; large ones are sampled.

const T0 = 1_700_000_000_000;

/**
 * A judged history of `n` messages over about 20 s: a producer pushes, two workers take and ack;
 * message m7 is double-popped (the other worker takes it while its first holder still holds the lease).
 */
function historyLines(n: number): string[] {
  const lines = [JSON.stringify({ type: 'run', version: 2, reaperIntervalMs: 1_000, recoveryBoundMs: 5_000 })];
  const op = (o: Record<string, unknown>) => lines.push(JSON.stringify(o));
  const step = 20_000 / n;
  for (let i = 0; i < n; i++) {
    const t = T0 + Math.round(i * step);
    const worker = i % 2 ? 'w2' : 'w1';
    op({ type: 'push', process: 'producer', id: `m${i}`, invokedAt: t, completedAt: t + 2, outcome: 'ok', delayMs: 0, priority: 0, shard: 'a' });
    op({ type: 'pop', process: worker, invokedAt: t + 5, completedAt: t + 8 + (i % 7) * 10, outcome: 'ok', via: 'schedule', shard: 'a', delivered: 1 });
    op({ type: 'deliver', process: worker, id: `m${i}`, invokedAt: t + 5, completedAt: t + 8 + (i % 7) * 10, outcome: 'ok', leaseUntil: t + 5 + 30_000, via: 'schedule', shard: 'a' });
    if (i === 7) {
      const other = worker === 'w1' ? 'w2' : 'w1';
      op({ type: 'deliver', process: other, id: 'm7', invokedAt: t + 100, completedAt: t + 110, outcome: 'ok', leaseUntil: t + 30_100, via: 'schedule', shard: 'a' });
      op({ type: 'ack', process: other, id: 'm7', invokedAt: t + 150, completedAt: t + 160, outcome: 'ok' });
    }
    op({ type: 'ack', process: worker, id: `m${i}`, invokedAt: t + 300, completedAt: t + 305, outcome: 'ok' });
  }
  return lines;
}

describe.runIf(browserAvailable)('dynoq report on a judged history, in a real browser', () => {
  let browser: Browser;
  let dir: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'dynoq-history-report-'));
    browser = await launchChromium();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  async function open(n: number, name: string) {
    const history = join(dir, `${name}.jsonl`);
    writeFileSync(history, `${historyLines(n).join('\n')}\n`);
    const html = join(dir, `${name}.html`);
    const code = await reportCommand(history, { html });
    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    const requests: string[] = [];
    page.on('request', (r) => {
      if (!r.url().startsWith('file:')) requests.push(r.url());
    });
    await page.goto(`file://${html}`);
    await page.waitForFunction(() => (window as unknown as { __dynoqReady?: boolean }).__dynoqReady === true);
    return { page, requests, code, html };
  }

  const tickTexts = (page: Page) => page.locator('#axis .tick').allTextContents();
  const seconds = (label: string) => (label.endsWith(' ms') ? Number(label.slice(0, -3)) / 1000 : Number(label.slice(0, -2)));

  it('draws the processes’ lanes, a labelled time axis, the three plots and the violation; a click focuses it', async () => {
    const { page, requests, code } = await open(200, 'small');
    expect(code).toBe(1); // the double pop
    expect(await page.locator('.lane-label').allTextContents()).toEqual(['producer', 'w1', 'w2']);
    expect(await page.locator('#axis-caption').textContent()).toBe('time since the start of the run');
    // ticks: round steps in seconds, increasing, spanning the ~20 s run
    const ticks = await tickTexts(page);
    expect(ticks.length).toBeGreaterThanOrEqual(5);
    expect(ticks.every((t) => /^\d+(\.\d)? s$/.test(t))).toBe(true);
    const values = ticks.map(seconds);
    expect(values).toEqual([...values].sort((a, b) => a - b));
    expect(values[0]).toBe(0);
    expect(values.at(-1)!).toBeGreaterThanOrEqual(15);

    for (const series of ['deliveriesPerSecond', 'latencyMs', 'holdsInFlight']) {
      const row = page.locator(`.plot[data-series="${series}"]`);
      expect(Number(await row.getAttribute('data-points')), series).toBeGreaterThan(50);
      expect(Number(await row.getAttribute('data-max')), series).toBeGreaterThan(0);
      const painted = await row.locator('canvas').evaluate((c: HTMLCanvasElement) => {
        const d = c.getContext('2d')!.getImageData(0, 0, c.width, c.height).data;
        let n = 0;
        for (let i = 3; i < d.length; i += 4) if (d[i]! > 0) n++;
        return n;
      });
      expect(painted, series).toBeGreaterThan(200);
    }
    // 200 deliveries (+1) over ~20 s: about 10 per second
    const rate = Number(await page.locator('.plot[data-series="deliveriesPerSecond"]').getAttribute('data-max'));
    expect(rate).toBeGreaterThan(5);
    expect(rate).toBeLessThan(200);

    expect(await page.locator('.violation').count()).toBe(1);
    await page.locator('.violation').first().click();
    expect(await page.locator('#focused-id').textContent()).toBe('m7');
    // focusing zooms in: the axis now labels a span of well under a second, in ms
    const zoomed = await tickTexts(page);
    expect(zoomed.length).toBeGreaterThanOrEqual(3);
    expect(zoomed.some((t) => t.endsWith(' ms'))).toBe(true);
    expect(requests).toEqual([]);
    await page.close();
  }, 120_000);

  it('a history of more messages than it draws is sampled, keeping the violating message; the plots count all', async () => {
    const n = MAX_DRAWN_MESSAGES * 2;
    const { page, html } = await open(n, 'large');
    expect(await page.locator('#sampled').textContent()).toContain(`of ${n} messages`);
    const data = JSON.parse(
      readFileSync(html, 'utf8')
        .split('<script type="application/json" id="data">')[1]!
        .split('</script>')[0]!,
    ) as { history: { id: string }[]; series: { deliveriesPerSecond: number[]; binMs: number } };
    const ids = new Set(data.history.map((e) => e.id));
    expect(ids.size).toBeLessThanOrEqual(MAX_DRAWN_MESSAGES);
    expect(ids.has('m7')).toBe(true);
    const deliveries = data.series.deliveriesPerSecond.reduce((s, r) => s + (r * data.series.binMs) / 1000, 0);
    expect(Math.round(deliveries)).toBe(n + 1);
    await page.locator('.violation').first().click();
    expect(await page.locator('#focused-id').textContent()).toBe('m7');
    await page.close();
  }, 120_000);
});
