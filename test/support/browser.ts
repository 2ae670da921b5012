import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

/** Debian's chromium (or the one DYNOQ_CHROMIUM names), driven by playwright-core; without it browser tests are left out unless REQUIRE_BROWSER=1. */
export const CHROMIUM = process.env.DYNOQ_CHROMIUM || '/usr/bin/chromium';
export const browserAvailable = existsSync(CHROMIUM);
if (!browserAvailable && process.env.REQUIRE_BROWSER === '1') throw new Error(`REQUIRE_BROWSER=1 but ${CHROMIUM} is not installed`);
// A skipped suite is easy to miss in a long run: say why and how to get it (CI sets REQUIRE_BROWSER=1).
if (!browserAvailable) {
  process.stderr.write(
    `NOTICE: the browser tests of the HTML report did not run: no Chromium at ${CHROMIUM} (apt-get install chromium, or set DYNOQ_CHROMIUM=/path/to/chromium; REQUIRE_BROWSER=1 makes its absence a failure)\n`,
  );
}

/** Headless, offline as far as Chromium's own traffic goes (a page's requests are the test's to watch). */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}
