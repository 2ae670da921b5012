import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * The layering, checked on the source text: `src/redis` (the in-process Redis) is the ground floor;
 * the store seam and the queue never reach the simulator; the production ioredis store never loads
 * the in-process Redis. Each rule follows imports transitively.
 */
const root = resolve(import.meta.dirname, '../..');

function sourceFiles(dir: string): string[] {
  return readdirSync(join(root, dir), { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith('.ts'))
    .map((e) => relative(root, join(e.parentPath, e.name)));
}

/** The project files a file imports (relative specifiers, `.js` written for `.ts`), type-only ones included. */
function importsOf(file: string): string[] {
  const text = readFileSync(join(root, file), 'utf8');
  const specs = [...text.matchAll(/(?:import|export)\s[^'"]*?from\s+'(\.[^']+)'|import\(\s*'(\.[^']+)'\s*\)/g)].map((m) => m[1] ?? m[2]!);
  return specs.map((s) => relative(root, resolve(join(root, dirname(file)), s.replace(/\.js$/, '.ts'))));
}

function closure(file: string): Set<string> {
  const seen = new Set<string>();
  const todo = [file];
  while (todo.length > 0) {
    const f = todo.pop()!;
    if (seen.has(f)) continue;
    seen.add(f);
    todo.push(...importsOf(f));
  }
  seen.delete(file);
  return seen;
}

function violations(dirs: string[], forbidden: (imported: string) => boolean): string[] {
  return dirs.flatMap(sourceFiles).flatMap((f) => [...closure(f)].filter(forbidden).map((bad) => `${f} → ${bad}`));
}

describe('layers', () => {
  it('the import scanner sees imports (a rule that could never fire would prove nothing)', () => {
    expect(importsOf('src/sim/sim-node.ts')).toContain('src/redis/keyspace.ts');
    expect(closure('src/sim/sim-node.ts')).toContain('src/redis/lua-engine.ts');
    expect(violations(['src/sim'], (f) => f.startsWith('src/redis/'))).not.toEqual([]);
  });

  it('src/redis imports nothing from src/sim, src/store or src/queue', () => {
    expect(violations(['src/redis'], (f) => /^src\/(sim|store|queue)\//.test(f))).toEqual([]);
  });

  it('src/store and src/queue import nothing from src/sim', () => {
    expect(violations(['src/store', 'src/queue'], (f) => f.startsWith('src/sim/'))).toEqual([]);
  });

  it('src/real\'s processes and clusters never reach the simulator (only the twin runner, src/real/twin, drives its workloads on them); nothing below reaches src/real', () => {
    const processLayer = sourceFiles('src/real').filter((f) => !f.startsWith('src/real/twin/'));
    expect(processLayer).toContain('src/real/start-cluster.ts');
    const bad = processLayer.flatMap((f) => [...closure(f)].filter((i) => i.startsWith('src/sim/') || i.startsWith('src/real/twin/')).map((i) => `${f} → ${i}`));
    expect(bad).toEqual([]);
    expect(violations(['src/queue', 'src/store', 'src/redis', 'src/sim'], (f) => f.startsWith('src/real/'))).toEqual([]);
  });

  it('IoredisStore (real Redis) loads neither the simulator nor the in-process Redis', () => {
    const loaded = [...closure('src/store/ioredis-store.ts'), ...closure('src/store/index.ts')];
    expect(loaded.filter((f) => f.startsWith('src/sim/') || /^src\/redis\/(keyspace|lua-engine|sorted-set)\.ts$/.test(f))).toEqual([]);
  });
});
