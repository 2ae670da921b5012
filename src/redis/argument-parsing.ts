import { NOT_FLOAT, NOT_INTEGER, RedisError, SYNTAX } from './redis-error.js';

/**
 * A score argument (ZADD, ZRANGEBYSCORE bounds): `inf` / `+inf` / `-inf` in any case, else a number
 * with no surrounding space. The common case (a plain number) is tried first: every script call
 * parses several, on every replica.
 */
export function parseScore(s: string | undefined, error = NOT_FLOAT): number {
  if (s === undefined) throw new RedisError(SYNTAX);
  // The spellings scripts send (promotion ranges start at -inf), before Number() fails on them.
  if (s === '-inf') return -Infinity;
  if (s === '+inf' || s === 'inf') return Infinity;
  const n = Number(s);
  // No spelling of inf makes Number() a number, so this answers exactly as the checks below would.
  if (!Number.isNaN(n) && s !== '' && s.trim() === s) return n;
  const t = s.toLowerCase();
  if (t === 'inf' || t === '+inf') return Infinity;
  if (t === '-inf') return -Infinity;
  throw new RedisError(error);
}

const ZERO = 48;
const NINE = 57;
const MINUS = 45;

/**
 * An integer argument (LIMIT offset and count, ZRANGE indexes): optional minus, decimal digits, a
 * safe integer. Up to 15 digits are read directly (always safe); longer ones go through Number().
 */
export function parseInteger(s: string | undefined): number {
  if (s === undefined) throw new RedisError(NOT_INTEGER);
  const negative = s.charCodeAt(0) === MINUS;
  const start = negative ? 1 : 0;
  const length = s.length;
  if (length === start) throw new RedisError(NOT_INTEGER);
  if (length - start <= 15) {
    let n = 0;
    for (let i = start; i < length; i++) {
      const c = s.charCodeAt(i);
      if (c < ZERO || c > NINE) throw new RedisError(NOT_INTEGER);
      n = n * 10 + (c - ZERO);
    }
    return negative ? -n : n;
  }
  if (!/^-?\d+$/.test(s)) throw new RedisError(NOT_INTEGER);
  const n = Number(s);
  if (!Number.isSafeInteger(n)) throw new RedisError(NOT_INTEGER);
  return n;
}

const UPPER_A = 65;
const UPPER_Z = 90;

/**
 * Whether `arg` is the option `word` (lower-case ASCII) in any case, as Redis compares options
 * (strcasecmp: ASCII only), without building a lower-cased copy per argument.
 */
export function isOption(arg: string, word: string): boolean {
  if (arg === word) return true;
  if (arg.length !== word.length) return false;
  for (let i = 0; i < word.length; i++) {
    const c = arg.charCodeAt(i);
    if ((c >= UPPER_A && c <= UPPER_Z ? c + 32 : c) !== word.charCodeAt(i)) return false;
  }
  return true;
}
