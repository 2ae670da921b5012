import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { RealProcessError } from '../real-process-error.js';
import { packageRoot } from './package-root.js';

/**
 * The vendored Dynomite source scripts/build-dynomite.sh builds: `$DYNOMITE_TARBALL`, else
 * `../shared/vendor/dynomite-2046b05.tar.gz` beside the package root.
 */
function dynomiteTarball(): string | null {
  if (process.env.DYNOMITE_TARBALL) return process.env.DYNOMITE_TARBALL;
  const root = packageRoot();
  return root === null ? null : resolve(root, '..', 'shared', 'vendor', 'dynomite-2046b05.tar.gz');
}

/** Where the binary is looked for, in order, for the error that says it is missing. */
function candidate(): { readonly path: string | null; readonly from: string } {
  const explicit = process.env.DYNOQ_DYNOMITE_BIN || process.env.DYNOMITE_BIN;
  if (explicit) return { path: explicit, from: process.env.DYNOQ_DYNOMITE_BIN ? 'DYNOQ_DYNOMITE_BIN' : 'DYNOMITE_BIN' };
  const tarball = dynomiteTarball();
  const root = packageRoot();
  if (tarball === null || root === null || !existsSync(tarball)) return { path: null, from: `no tarball at ${tarball ?? '../shared/vendor (no package root)'}` };
  // The cache is keyed by the tarball's content, as scripts/build-dynomite.sh keys it.
  const sha = createHash('sha256').update(readFileSync(tarball)).digest('hex');
  return { path: join(process.env.DYNOMITE_CACHE ?? join(root, '.cache', 'dynomite'), sha, 'dynomite'), from: 'the build cache' };
}

/** The built Dynomite binary, or null when it is absent. */
export function dynomiteBinary(): string | null {
  const { path } = candidate();
  return path !== null && existsSync(path) ? path : null;
}

export function requireDynomiteBinary(): string {
  const found = dynomiteBinary();
  if (found !== null) return found;
  const { path, from } = candidate();
  throw new RealProcessError(
    'dynomite-missing',
    `no Dynomite build (${path !== null ? `${path} from ${from} does not exist` : from}): run scripts/build-dynomite.sh, or set DYNOQ_DYNOMITE_BIN`,
  );
}
