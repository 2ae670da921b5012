/**
 * Lua 5.1 patterns (as used by `string.match`) translated to JavaScript regular expressions, so
 * that script twins match payloads exactly as the Lua text does. Covers character classes
 * (%a %d %l %s %u %w %x %p %c and their negations), sets, anchors and the * + - ? quantifiers.
 * Captures, %b and %f are not supported and raise an error naming the pattern.
 */
const CLASSES: Record<string, string> = {
  a: 'A-Za-z',
  d: '0-9',
  l: 'a-z',
  s: '\\t\\n\\v\\f\\r ',
  u: 'A-Z',
  w: 'A-Za-z0-9',
  x: '0-9A-Fa-f',
  p: '!-\\/:-@\\[-`{-~',
  c: '\\x00-\\x1f\\x7f',
};

function escapeForSet(ch: string): string {
  return /[\\\]^-]/.test(ch) ? `\\${ch}` : ch;
}

function classFor(letter: string): string {
  const lower = letter.toLowerCase();
  const set = CLASSES[lower];
  if (set === undefined) return `[${escapeForSet(letter)}]`;
  return letter === lower ? `[${set}]` : `[^${set}]`;
}

export class UnsupportedLuaPatternError extends Error {
  constructor(pattern: string, reason: string) {
    super(`Lua pattern ${JSON.stringify(pattern)} is not supported by the script twin: ${reason}`);
    this.name = 'UnsupportedLuaPatternError';
  }
}

export function luaPatternToRegExp(pattern: string): RegExp {
  let out = '';
  let i = 0;
  if (pattern.startsWith('^')) {
    out += '^';
    i = 1;
  }
  while (i < pattern.length) {
    const ch = pattern[i]!;
    let atom: string;
    if (ch === '%') {
      const next = pattern[i + 1];
      if (next === undefined) throw new UnsupportedLuaPatternError(pattern, 'ends with %');
      if (next === 'b' || next === 'f') throw new UnsupportedLuaPatternError(pattern, `%${next}`);
      atom = /[A-Za-z]/.test(next) ? classFor(next) : `[${escapeForSet(next)}]`;
      i += 2;
    } else if (ch === '[') {
      let j = i + 1;
      let set = '[';
      if (pattern[j] === '^') {
        set += '^';
        j++;
      }
      let first = true;
      while (j < pattern.length && (pattern[j] !== ']' || first)) {
        const c = pattern[j]!;
        first = false;
        if (c === '%') {
          const n = pattern[j + 1] ?? '';
          const cls = /[A-Za-z]/.test(n) ? CLASSES[n.toLowerCase()] : undefined;
          if (cls !== undefined && n === n.toLowerCase()) set += cls;
          else if (cls !== undefined) throw new UnsupportedLuaPatternError(pattern, 'negated class inside a set');
          else set += escapeForSet(n);
          j += 2;
        } else if (pattern[j + 1] === '-' && pattern[j + 2] !== undefined && pattern[j + 2] !== ']') {
          set += `${escapeForSet(c)}-${escapeForSet(pattern[j + 2]!)}`;
          j += 3;
        } else {
          set += escapeForSet(c);
          j++;
        }
      }
      if (j >= pattern.length) throw new UnsupportedLuaPatternError(pattern, 'unclosed [');
      atom = `${set}]`;
      i = j + 1;
    } else if (ch === '(' || ch === ')') {
      throw new UnsupportedLuaPatternError(pattern, 'captures');
    } else if (ch === '$' && i === pattern.length - 1) {
      out += '$';
      i++;
      continue;
    } else if (ch === '.') {
      atom = '[\\s\\S]';
      i++;
    } else {
      atom = ch.replace(/[\\^$.*+?()[\]{}|/]/g, '\\$&');
      i++;
    }
    const q = pattern[i];
    if (q === '*' || q === '+' || q === '?') {
      out += atom + q;
      i++;
    } else if (q === '-') {
      out += `${atom}*?`;
      i++;
    } else {
      out += atom;
    }
  }
  return new RegExp(out);
}

/** `string.match(subject, pattern) ~= nil` */
export function luaMatches(subject: string, pattern: string): boolean {
  return luaPatternToRegExp(pattern).test(subject);
}
