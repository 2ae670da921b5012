import { describe, expect, it } from 'vitest';
import { ALL_SCRIPTS } from '../../src/queue/scripts/index.js';
import { luaMutants } from '../../scripts/lua-mutation/mutants.js';

describe('Lua mutants (scripts/lua-mutation)', () => {
  it('each changes one place, outside strings and comments', () => {
    const lua = `-- a comment: if x < 1 then return 2 end\nlocal s = "a < b and 1"\nif n < 10 and not done then return n + 1 end\nreturn 0`;
    const mutants = luaMutants(lua);
    for (const m of mutants) {
      expect(m.lua).not.toBe(lua);
      expect(m.lua.startsWith('-- a comment: if x < 1 then return 2 end\nlocal s = "a < b and 1"\n')).toBe(true);
    }
    const described = mutants.map((m) => `${m.operator}: ${m.from} → ${m.to}`);
    expect(described).toEqual(
      expect.arrayContaining([
        'relational: < → <=',
        'relational: < → >',
        'logical: and → or',
        'not dropped: not  → ',
        'literal: 10 → 11',
        'literal: 1 → 0',
        'literal: 0 → 1',
        'arithmetic: + → -',
        'if condition: if n < 10 and not done then → if true then',
        'if condition: if n < 10 and not done then → if not (n < 10 and not done) then',
        'reply: return n + 1 → return nil',
        'reply: return 0 → return nil',
      ]),
    );
    expect(mutants.every((m) => m.line === 3 || m.line === 4)).toBe(true);
  });

  it('every queue script yields mutants', () => {
    for (const s of ALL_SCRIPTS) expect(luaMutants(s.lua).length, s.name).toBeGreaterThan(5);
  });
});
