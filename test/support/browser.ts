import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

/** Debian's chromium, driven by playwright-core; without it browser tests are left out unless REQUIRE_BROWSER=1. */
export const CHROMIUM = '/usr/bin/chromium';
export const browserAvailable = existsSync(CHROMIUM);
if (!browserAvailable && process.env.REQUIRE_BROWSER === '1') throw new Error(`REQUIRE_BROWSER=1 but ${CHROMIUM} is not installed`);

/** Headless, offline as far as Chromium's own traffic goes (a page's requests are the test's to watch). */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}
