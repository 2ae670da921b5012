// `npm pack` / `npm publish` lifecycle: the published package.json leaves out the `prepare` script.
// A git install (`npm install github:…`) needs `prepare` (npm builds a git dependency's dist/ through
// it, and only through it), but in a tarball it only makes npm ≥ 11 warn "install-scripts …
// (prepare: npm run build)" on every install. prepack (after the build) removes the line and postpack
// puts it back; both are exact text edits, so package.json is left byte for byte as it was.
import { readFileSync, writeFileSync } from 'node:fs';

const FILE = 'package.json';
const BUILD = '    "build": "node scripts/build.mjs",\n';
const PREPARE = '    "prepare": "npm run build",\n';

const mode = process.argv[2];
const text = readFileSync(FILE, 'utf8');
if (!text.includes(BUILD)) throw new Error(`${FILE}: the line ${JSON.stringify(BUILD.trim())} moved; update scripts/pack-manifest.mjs`);
if (mode === 'strip') {
  // Tolerant of a second pack running alongside: already stripped is fine.
  if (text.includes(BUILD + PREPARE)) writeFileSync(FILE, text.replace(BUILD + PREPARE, BUILD));
} else if (mode === 'restore') {
  if (!text.includes(PREPARE)) writeFileSync(FILE, text.replace(BUILD, BUILD + PREPARE));
} else {
  throw new Error('usage: node scripts/pack-manifest.mjs strip|restore');
}
