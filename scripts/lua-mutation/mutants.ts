/**
 * Mutants of a Lua script's text: one small change each, never inside a string or a comment.
 * Operators: relational (< <= > >= == ~=), arithmetic (+ - * /), logical (and/or, not dropped),
 * numeric literals (0 ↔ 1, n → n + 1), `if` conditions forced true or negated, `break` dropped, and
 * replies (`return X` → `return nil`).
 */
export interface LuaMutant {
  /** 1-based line of the change. */
  readonly line: number;
  readonly operator: string;
  readonly from: string;
  readonly to: string;
  readonly lua: string;
}

/** Character ranges of strings and comments, which mutants leave alone. */
function protectedRanges(lua: string): [number, number][] {
  const ranges: [number, number][] = [];
  let i = 0;
  while (i < lua.length) {
    const c = lua[i]!;
    if (c === '-' && lua[i + 1] === '-') {
      const long = /^--\[(=*)\[/.exec(lua.slice(i));
      const end = long ? lua.indexOf(`]${long[1]}]`, i) + long[1]!.length + 2 : lua.indexOf('\n', i);
      const stop = end < 0 || (long && end < long[0].length) ? lua.length : end;
      ranges.push([i, stop]);
      i = stop;
    } else if (c === '"' || c === "'") {
      let j = i + 1;
      while (j < lua.length && lua[j] !== c) j += lua[j] === '\\' ? 2 : 1;
      ranges.push([i, j + 1]);
      i = j + 1;
    } else if (c === '[' && /^\[=*\[/.test(lua.slice(i))) {
      const eq = /^\[(=*)\[/.exec(lua.slice(i))![1]!;
      const end = lua.indexOf(`]${eq}]`, i);
      const stop = end < 0 ? lua.length : end + eq.length + 2;
      ranges.push([i, stop]);
      i = stop;
    } else i++;
  }
  return ranges;
}

interface Rule {
  readonly operator: string;
  readonly pattern: RegExp;
  readonly replace: (m: RegExpExecArray) => string[];
}

const RULES: readonly Rule[] = [
  { operator: 'relational', pattern: /<=|>=|==|~=|<(?![<=])|>(?![>=])/g, replace: (m) => ({ '<': ['<=', '>'], '<=': ['<', '>'], '>': ['>=', '<'], '>=': ['>', '<'], '==': ['~='], '~=': ['=='] })[m[0]] ?? [] },
  { operator: 'arithmetic', pattern: /(?<=[\w)\]] ?)[+*/](?= ?[\w(#])|(?<=[\w)\]] )-(?= [\w(#])/g, replace: (m) => ({ '+': ['-'], '-': ['+'], '*': ['/'], '/': ['*'] })[m[0]] ?? [] },
  { operator: 'logical', pattern: /\b(and|or)\b/g, replace: (m) => [m[0] === 'and' ? 'or' : 'and'] },
  { operator: 'not dropped', pattern: /\bnot /g, replace: () => [''] },
  { operator: 'literal', pattern: /(?<![\w.])\d+(?![\w.])/g, replace: (m) => (m[0] === '0' ? ['1'] : m[0] === '1' ? ['0', '2'] : [String(Number(m[0]) + 1)]) },
  { operator: 'if condition', pattern: /\bif (.+?) then\b/g, replace: (m) => [`if true then`, `if not (${m[1]}) then`] },
  { operator: 'break dropped', pattern: /\bbreak\b/g, replace: () => ['do end'] },
  { operator: 'reply', pattern: /\breturn (?!nil\b)(?:.+?)(?=\s+end\b|\n|$)/g, replace: () => ['return nil'] },
];

export function luaMutants(lua: string): LuaMutant[] {
  const ranges = protectedRanges(lua);
  const inside = (a: number, b: number) => ranges.some(([s, e]) => a < e && b > s);
  const lineOf = (i: number) => lua.slice(0, i).split('\n').length;
  const out: LuaMutant[] = [];
  for (const rule of RULES) {
    rule.pattern.lastIndex = 0;
    for (let m = rule.pattern.exec(lua); m; m = rule.pattern.exec(lua)) {
      const start = m.index;
      const end = start + m[0].length;
      // `if … then` spans may contain strings; only the operator itself must be outside them.
      if (rule.operator === 'if condition' ? inside(start, start + 2) : inside(start, end)) continue;
      for (const to of rule.replace(m)) {
        out.push({ line: lineOf(start), operator: rule.operator, from: m[0], to, lua: lua.slice(0, start) + to + lua.slice(end) });
      }
    }
  }
  return out;
}
