import { InvalidArgumentError } from './errors.js';
import { shownValue } from './shown-value.js';

/**
 * Per-call options are checked like createQueue's: an object, and no key the call does not know
 * (a typo such as `{ bacth: 5 }` would otherwise fall back to the default without a word).
 */
export function checkOptionKeys(options: unknown, allowed: readonly string[], what: string): void {
  if (options === null || typeof options !== 'object' || Array.isArray(options)) {
    throw new InvalidArgumentError(what, `must be an object (got ${shownValue(options)})`);
  }
  const unknown = Object.keys(options).filter((key) => !allowed.includes(key));
  if (unknown.length > 0) {
    throw new InvalidArgumentError(what, `unknown ${unknown.length === 1 ? 'key' : 'keys'} ${unknown.map((k) => JSON.stringify(k)).join(', ')} (known: ${allowed.join(', ')})`);
  }
}
