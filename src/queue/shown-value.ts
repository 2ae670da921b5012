/**
 * A bad argument as an error message shows it: a string is quoted and named as one, so that
 * `pop('2')` does not read "got 2" as if 2 were wrong.
 */
export function shownValue(value: unknown): string {
  if (typeof value === 'string') return `${JSON.stringify(value)} (a string)`;
  if (typeof value === 'bigint') return `${value}n (a bigint)`;
  if (Array.isArray(value)) return 'an array';
  if (value !== null && (typeof value === 'object' || typeof value === 'function')) return `a ${typeof value}`;
  return String(value);
}
