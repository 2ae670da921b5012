import { InvalidArgumentError, PatternTooComplexError } from './errors.js';
import { loneSurrogateAt } from './message.js';

/**
 * Lua 5.1 patterns (Redis's `string.match`), matched in the client with a step budget.
 *
 * Dyno-queues matched predicate patterns inside a Redis script, where a backtracking pattern such as
 * `.-.-.-b` over one 10 KB payload ran for minutes with every other client of that Redis blocked
 * (a script cannot be killed while it is inside the C pattern matcher). dynoq reads the message hash
 * in small pages (one bounded script call each) and matches here instead, so no pattern can stall
 * Redis; what a pattern can cost the client is bounded by a step budget per payload.
 *
 * This is a port of lstrlib.c (Lua 5.1: `match`, `max_expand`, `min_expand`, classes in the C
 * locale) over the UTF-8 bytes of the payload, so a pattern matches here exactly where Redis's Lua
 * would match it. Patterns are checked completely before any matching: a malformed pattern (one Lua
 * would reject when the matcher reaches the bad part) is refused with InvalidArgumentError.
 */

const L_ESC = 0x25; // %
const MAX_CAPTURES = 32;
const CAP_UNFINISHED = -1;
const CAP_POSITION = -2;

/** Steps allowed per payload: a fixed allowance plus this many per payload byte. */
export const PATTERN_BASE_STEPS = 100_000;
export const PATTERN_STEPS_PER_BYTE = 64;

export function patternStepBudget(payloadBytes: number): number {
  return PATTERN_BASE_STEPS + PATTERN_STEPS_PER_BYTE * payloadBytes;
}

/** A validated pattern, ready to match. */
export interface LuaPattern {
  readonly source: string;
  readonly bytes: Uint8Array;
}

class BudgetExceeded extends Error {}

function malformed(reason: string): never {
  throw new InvalidArgumentError('pattern', `is not a valid Lua pattern: ${reason}`);
}

/** Index just past the single-character class starting at `i` (as lstrlib's classEnd), or an error. */
function classEnd(p: Uint8Array, i: number): number {
  const c = p[i++];
  if (c === L_ESC) {
    if (i >= p.length) malformed("malformed pattern (ends with '%')");
    return i + 1;
  }
  if (c === 0x5b /* [ */) {
    if (p[i] === 0x5e /* ^ */) i++;
    // look for a ']' (the first character of the set may itself be ']')
    do {
      if (i >= p.length) malformed("malformed pattern (missing ']')");
      const d = p[i++];
      if (d === L_ESC) {
        if (i >= p.length) malformed("malformed pattern (missing ']')");
        i++;
      }
    } while (p[i] !== 0x5d /* ] */);
    return i + 1;
  }
  return i;
}

const isQuantifier = (c: number | undefined) => c === 0x3f || c === 0x2a || c === 0x2b || c === 0x2d; // ? * + -

/**
 * Checks a pattern the way Lua's matcher would on some input: every error Lua can raise for it
 * (ends with '%', missing ']', %b without two characters, %f without '[', ')' without '(', a
 * back-reference to a capture not closed before it, an unfinished capture, over 32 captures) is
 * raised here, before any matching, as InvalidArgumentError. NUL bytes are refused (Lua 5.1 stops
 * reading a pattern at NUL).
 */
export function compileLuaPattern(source: string): LuaPattern {
  if (typeof source !== 'string' || source.length === 0 || source.length > 1024) {
    throw new InvalidArgumentError('pattern', 'must be a Lua pattern of 1 to 1024 characters');
  }
  if (loneSurrogateAt(source) >= 0) throw new InvalidArgumentError('pattern', 'is not well-formed Unicode (lone surrogate)');
  const p = new Uint8Array(Buffer.from(source, 'utf8'));
  if (p.includes(0)) throw new InvalidArgumentError('pattern', 'must not contain NUL characters');
  const open: number[] = []; // indices of captures still open
  const closed = new Set<number>();
  let captures = 0;
  let i = p[0] === 0x5e /* ^ */ ? 1 : 0;
  while (i < p.length) {
    const c = p[i]!;
    if (c === 0x28 /* ( */) {
      if (captures >= MAX_CAPTURES) malformed('too many captures');
      if (p[i + 1] === 0x29 /* ) */) {
        closed.add(captures++);
        i += 2;
      } else {
        open.push(captures++);
        i++;
      }
      continue;
    }
    if (c === 0x29 /* ) */) {
      const l = open.pop();
      if (l === undefined) malformed('invalid pattern capture');
      closed.add(l);
      i++;
      continue;
    }
    if (c === 0x24 /* $ */ && i === p.length - 1) {
      i++;
      continue;
    }
    if (c === L_ESC) {
      const next = p[i + 1];
      if (next === undefined) malformed("malformed pattern (ends with '%')");
      if (next === 0x62 /* b */) {
        if (i + 3 >= p.length) malformed('unbalanced pattern (%b needs two characters)');
        i += 4;
        continue;
      }
      if (next === 0x66 /* f */) {
        if (p[i + 2] !== 0x5b) malformed("missing '[' after '%f' in pattern");
        i = classEnd(p, i + 2);
        continue;
      }
      if (next >= 0x30 && next <= 0x39) {
        const l = next - 0x31;
        if (l < 0 || !closed.has(l)) malformed(`invalid capture index %${String.fromCharCode(next)}`);
        i += 2;
        continue;
      }
    }
    const ep = classEnd(p, i);
    i = isQuantifier(p[ep]) ? ep + 1 : ep;
  }
  if (open.length > 0) malformed('unfinished capture');
  return { source, bytes: p };
}

// --- character classes, C locale ------------------------------------------------------------------

const isAlpha = (c: number) => (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a);
const isDigit = (c: number) => c >= 0x30 && c <= 0x39;
const isLower = (c: number) => c >= 0x61 && c <= 0x7a;
const isUpper = (c: number) => c >= 0x41 && c <= 0x5a;
const isSpace = (c: number) => (c >= 9 && c <= 13) || c === 32;
const isCntrl = (c: number) => c < 32 || c === 127;
const isPunct = (c: number) => (c >= 33 && c <= 47) || (c >= 58 && c <= 64) || (c >= 91 && c <= 96) || (c >= 123 && c <= 126);
const isXdigit = (c: number) => isDigit(c) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66);

function matchClass(c: number, cl: number): boolean {
  let res: boolean;
  switch (cl | 0x20) {
    case 0x61: res = isAlpha(c); break; // a
    case 0x63: res = isCntrl(c); break; // c
    case 0x64: res = isDigit(c); break; // d
    case 0x6c: res = isLower(c); break; // l
    case 0x70: res = isPunct(c); break; // p
    case 0x73: res = isSpace(c); break; // s
    case 0x75: res = isUpper(c); break; // u
    case 0x77: res = isAlpha(c) || isDigit(c); break; // w
    case 0x78: res = isXdigit(c); break; // x
    case 0x7a: res = c === 0; break; // z
    default: return cl === c;
  }
  return isUpper(cl) ? !res : res;
}

/** `p[pi]` is '['; `ec` is the index of the closing ']'. */
function matchBracketClass(c: number, p: Uint8Array, pi: number, ec: number): boolean {
  let sig = true;
  if (p[pi + 1] === 0x5e) {
    sig = false;
    pi++;
  }
  while (++pi < ec) {
    if (p[pi] === L_ESC) {
      pi++;
      if (matchClass(c, p[pi]!)) return sig;
    } else if (p[pi + 1] === 0x2d && pi + 2 < ec) {
      pi += 2;
      if (p[pi - 2]! <= c && c <= p[pi]!) return sig;
    } else if (p[pi] === c) return sig;
  }
  return !sig;
}

function singleMatch(c: number, p: Uint8Array, pi: number, ep: number): boolean {
  switch (p[pi]) {
    case 0x2e: return true; // .
    case L_ESC: return matchClass(c, p[pi + 1]!);
    case 0x5b: return matchBracketClass(c, p, pi, ep - 1);
    default: return p[pi] === c;
  }
}

/** The pattern's first byte when it is a literal that every match starts with, else -1. */
function plainFirstByte(p: Uint8Array): number {
  const c = p[0];
  if (c === undefined || '^$*+?.([%-)]'.includes(String.fromCharCode(c))) return -1;
  if (p.length === 2 && c === 0x24) return -1;
  return isQuantifier(p[1]) ? -1 : c;
}

// --- the matcher ---------------------------------------------------------------------------------

class Matcher {
  private steps = 0;
  private level = 0;
  private readonly capInit: number[] = [];
  private readonly capLen: number[] = [];

  constructor(
    private readonly s: Uint8Array,
    private readonly p: Uint8Array,
    private readonly budget: number,
  ) {}

  private tick(): void {
    if (++this.steps > this.budget) throw new BudgetExceeded();
  }

  /** Unanchored (or '^'-anchored) search, as string.match(s, p) with init 1: true when it matches. */
  find(): boolean {
    const anchor = this.p[0] === 0x5e;
    const start = anchor ? 1 : 0;
    // When the pattern starts with a plain byte that must match once (not special, no quantifier
    // after it), a match can only start where that byte is: skip straight to it (same answer).
    const first = anchor ? -1 : plainFirstByte(this.p);
    let si = 0;
    do {
      if (first !== -1) {
        si = this.s.indexOf(first, si);
        if (si === -1) return false;
      }
      this.tick();
      this.level = 0;
      if (this.match(si, start) !== -1) return true;
    } while (si++ < this.s.length && !anchor);
    return false;
  }

  /** lstrlib's `match`: the index where the match of p[pi..] at s[si..] ends, or -1. */
  private match(si: number, pi: number): number {
    const { s, p } = this;
    for (;;) {
      this.tick();
      if (pi >= p.length) return si;
      const pc = p[pi]!;
      if (pc === 0x28) {
        return p[pi + 1] === 0x29 ? this.startCapture(si, pi + 2, CAP_POSITION) : this.startCapture(si, pi + 1, CAP_UNFINISHED);
      }
      if (pc === 0x29) return this.endCapture(si, pi + 1);
      if (pc === L_ESC && p[pi + 1] === 0x62 /* b */) {
        si = this.matchBalance(si, pi + 2);
        if (si === -1) return -1;
        pi += 4;
        continue;
      }
      if (pc === L_ESC && p[pi + 1] === 0x66 /* f */) {
        pi += 2;
        const ep = classEnd(p, pi);
        const previous = si === 0 ? 0 : s[si - 1]!;
        const current = si < s.length ? s[si]! : 0;
        if (matchBracketClass(previous, p, pi, ep - 1) || !matchBracketClass(current, p, pi, ep - 1)) return -1;
        pi = ep;
        continue;
      }
      if (pc === L_ESC && isDigit(p[pi + 1] ?? 0)) {
        si = this.matchCapture(si, p[pi + 1]!);
        if (si === -1) return -1;
        pi += 2;
        continue;
      }
      if (pc === 0x24 && pi + 1 === p.length) return si === s.length ? si : -1;
      // a single-character item, perhaps with a quantifier
      const ep = classEnd(p, pi);
      const m = si < s.length && singleMatch(s[si]!, p, pi, ep);
      switch (p[ep]) {
        case 0x3f: {
          // ?
          if (m) {
            const res = this.match(si + 1, ep + 1);
            if (res !== -1) return res;
          }
          pi = ep + 1;
          continue;
        }
        case 0x2a: // *
          return this.maxExpand(si, pi, ep);
        case 0x2b: // +
          return m ? this.maxExpand(si + 1, pi, ep) : -1;
        case 0x2d: // -
          return this.minExpand(si, pi, ep);
        default:
          if (!m) return -1;
          si++;
          pi = ep;
      }
    }
  }

  private maxExpand(si: number, pi: number, ep: number): number {
    let i = 0;
    while (si + i < this.s.length && singleMatch(this.s[si + i]!, this.p, pi, ep)) {
      this.tick();
      i++;
    }
    while (i >= 0) {
      const res = this.match(si + i, ep + 1);
      if (res !== -1) return res;
      i--;
    }
    return -1;
  }

  private minExpand(si: number, pi: number, ep: number): number {
    for (;;) {
      const res = this.match(si, ep + 1);
      if (res !== -1) return res;
      if (si < this.s.length && singleMatch(this.s[si]!, this.p, pi, ep)) si++;
      else return -1;
    }
  }

  private matchBalance(si: number, pi: number): number {
    const { s, p } = this;
    if (si >= s.length || s[si] !== p[pi]) return -1;
    const b = p[pi]!;
    const e = p[pi + 1]!;
    let cont = 1;
    while (++si < s.length) {
      this.tick();
      if (s[si] === e) {
        if (--cont === 0) return si + 1;
      } else if (s[si] === b) cont++;
    }
    return -1;
  }

  private startCapture(si: number, pi: number, what: number): number {
    const level = this.level;
    this.capInit[level] = si;
    this.capLen[level] = what;
    this.level = level + 1;
    const res = this.match(si, pi);
    if (res === -1) this.level--;
    return res;
  }

  private endCapture(si: number, pi: number): number {
    let l = this.level - 1;
    while (l >= 0 && this.capLen[l] !== CAP_UNFINISHED) l--;
    // compileLuaPattern guarantees an open capture here
    this.capLen[l] = si - this.capInit[l]!;
    const res = this.match(si, pi);
    if (res === -1) this.capLen[l] = CAP_UNFINISHED;
    return res;
  }

  private matchCapture(si: number, digit: number): number {
    const l = digit - 0x31;
    const init = this.capInit[l]!;
    const n = this.capLen[l]!;
    // a position capture has no text: Lua compares (size_t)-2 bytes, which never match
    if (n === CAP_POSITION || this.s.length - si < n) return -1;
    for (let k = 0; k < n; k++) {
      this.tick();
      if (this.s[init + k] !== this.s[si + k]) return -1;
    }
    return si + n;
  }
}

/**
 * Whether `subject` (matched as its UTF-8 bytes) contains a match of `pattern`, as Redis's
 * `string.match(subject, pattern) ~= nil`. Throws PatternTooComplexError when the match needs
 * more than `patternStepBudget(bytes)` steps.
 */
export function luaPatternMatches(pattern: LuaPattern, subject: string, id = ''): boolean {
  const s = new Uint8Array(Buffer.from(subject, 'utf8'));
  const budget = patternStepBudget(s.length);
  try {
    return new Matcher(s, pattern.bytes, budget).find();
  } catch (err) {
    if (err instanceof BudgetExceeded) throw new PatternTooComplexError(pattern.source, id, s.length, budget);
    throw err;
  }
}
