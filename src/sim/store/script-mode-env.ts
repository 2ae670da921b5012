import { InvalidArgumentError } from '../../queue/errors.js';
import type { ScriptMode } from '../../redis/keyspace.js';

/**
 * DYNOQ_SCRIPTS: how simulated nodes run scripts when nothing set it in code. Read when a node is
 * made rather than at import (importing dynoq/sim must not throw), and by the CLI before a command
 * starts (a worker thread's error would otherwise arrive as an internal one); a typo such as
 * `bogus` used to run twins silently.
 */
export function scriptModeFromEnv(): ScriptMode {
  const value = process.env.DYNOQ_SCRIPTS;
  if (value === undefined || value === '' || value === 'twin') return 'twin';
  if (value === 'lua' || value === 'compare') return value;
  throw new InvalidArgumentError('DYNOQ_SCRIPTS', `${JSON.stringify(value)} is not 'twin', 'lua' or 'compare' (unset means 'twin')`);
}
