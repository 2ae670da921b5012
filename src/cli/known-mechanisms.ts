import { readFileSync } from 'node:fs';
import * as z from 'zod';
import { issueLines } from '../runtime/zod-issues.js';
import { CliError } from './cli-error.js';

const knownSchema = z.array(z.string().regex(/ ← /, 'a mechanism is "kind ← cause", as docs/GUARANTEES.md and explore print it')).min(1);

/**
 * A `--known` file: a JSON array of mechanisms (`"lost-never-delivered ← node-crash (writes lost)"`)
 * that the set-up is known to show — the guarantees table publishes them per configuration, and
 * explore prints each finding's. A finding made only of known mechanisms does not fail the gate.
 */
export function readKnown(file: string): string[] {
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new CliError(`--known ${file}: ${err instanceof Error ? err.message : String(err)}`);
  }
  const parsed = knownSchema.safeParse(json);
  if (!parsed.success) throw new CliError(`--known ${file}: ${issueLines(parsed.error.issues, '(file)').join('; ')}`);
  return parsed.data;
}
