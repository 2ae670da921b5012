/** How Redis 7 and its Lua 5.1 print doubles; the simulated keyspace must print them the same way. */

/** C's `%.<precision>g`. */
function formatG(n: number, precision: number): string {
  if (n === Infinity) return 'inf';
  if (n === -Infinity) return '-inf';
  if (Number.isNaN(n)) return 'nan';
  if (n === 0) return Object.is(n, -0) ? '-0' : '0';
  // toExponential rounds first, so its exponent is the one %g decides on.
  let [mantissa, e] = n.toExponential(precision - 1).split('e') as [string, string];
  const exponent = Number(e);
  if (exponent < -4 || exponent >= precision) {
    if (mantissa.includes('.')) mantissa = mantissa.replace(/0+$/, '').replace(/\.$/, '');
    const sign = exponent < 0 ? '-' : '+';
    const digits = String(Math.abs(exponent)).padStart(2, '0');
    return `${mantissa}e${sign}${digits}`;
  }
  let fixed = n.toFixed(Math.max(0, precision - 1 - exponent));
  if (fixed.includes('.')) fixed = fixed.replace(/0+$/, '').replace(/\.$/, '');
  return fixed;
}

/** Redis 7.0's reply form of a score (ZSCORE, WITHSCORES): integers plainly, otherwise "%.17g". */
export function formatRedisDouble(n: number): string {
  if (n === Infinity) return 'inf';
  if (n === -Infinity) return '-inf';
  if (Number.isInteger(n) && Math.abs(n) < 2 ** 52) return Object.is(n, -0) ? '0' : String(n);
  return formatG(n, 17);
}
