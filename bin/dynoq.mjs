#!/usr/bin/env node
// The dynoq command: the compiled CLI in dist/ (built by `npm run build`, which `npm install` of a
// git checkout runs through `prepare`).
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const compiled = join(dirname(fileURLToPath(import.meta.url)), '..', 'dist', 'cli.js');
if (!existsSync(compiled)) {
  console.error('dynoq: the compiled CLI is missing (dist/cli.js); run `npm run build` in the dynoq checkout');
  process.exit(2);
}
await import(pathToFileURL(compiled).href);
