// `npm start [-- FLAGS]`: the default story (`dynoq sim FLAGS`). The story shows violations on
// purpose, so its exit 1 becomes 0; every other code (2 bad input, 3 internal error) is kept.
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const bin = join(dirname(fileURLToPath(import.meta.url)), '..', 'bin', 'dynoq.mjs');
const r = spawnSync(process.execPath, [bin, 'sim', ...process.argv.slice(2)], { stdio: 'inherit' });
process.exitCode = r.status === 1 ? 0 : (r.status ?? 3);
