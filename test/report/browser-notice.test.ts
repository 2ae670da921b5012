import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { root } from '../support/dynoq-cli.js';

/**
 * Without Chromium the browser tests cannot run: a developer is told so (not a silent skip), and
 * with REQUIRE_BROWSER=1 (CI) the absence is a failure. (DYNOQ_RESULTS is cleared: the inner run
 * must not overwrite the outer run's results file.)
 */
const vitest = join(root, 'node_modules', 'vitest', 'vitest.mjs');
const runBrowserTests = (env: NodeJS.ProcessEnv) =>
  spawnSync(process.execPath, [vitest, 'run', 'test/report/report-browser.test.ts'], {
    cwd: root,
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1', REQUIRE_BROWSER: '', DYNOQ_RESULTS: '', ...env },
  });

describe('test/report/report-browser.test.ts without Chromium', () => {
  it('prints a notice naming the missing browser and how to get it', () => {
    const r = runBrowserTests({ DYNOQ_CHROMIUM: '/nonexistent/chromium' });
    expect(r.status).toBe(0);
    expect(`${r.stdout}${r.stderr}`).toContain('NOTICE: the browser tests of the HTML report did not run: no Chromium at /nonexistent/chromium');
  }, 120_000);

  it('fails under REQUIRE_BROWSER=1', () => {
    const r = runBrowserTests({ DYNOQ_CHROMIUM: '/nonexistent/chromium', REQUIRE_BROWSER: '1' });
    expect(r.status).not.toBe(0);
    expect(`${r.stdout}${r.stderr}`).toContain('REQUIRE_BROWSER=1 but /nonexistent/chromium is not installed');
  }, 120_000);
});
