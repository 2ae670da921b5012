#!/usr/bin/env node
// Runs the TypeScript CLI through tsx, so `npx dynoq` works without a build step.
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const require = createRequire(import.meta.url);
const tsx = require.resolve('tsx/cli');
const result = spawnSync(process.execPath, [tsx, join(here, '..', 'src', 'cli', 'main.ts'), ...process.argv.slice(2)], {
  stdio: 'inherit',
});
process.exit(result.status ?? 1);
