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

/** Every source file of src/ with the project files it imports. */
function importGraph(): Map<string, string[]> {
  return new Map(sourceFiles('src').map((f) => [f, importsOf(f)]));
}

/** Import circles among files: the strongly connected components of more than one file (Tarjan), and files importing themselves. */
function importCircles(graph: Map<string, string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const circles: string[][] = [];
  let next = 0;
  const visit = (v: string): void => {
    index.set(v, next);
    low.set(v, next);
    next++;
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!graph.has(w)) continue;
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1 || (graph.get(v) ?? []).includes(v)) circles.push(component.sort());
    }
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return circles;
}

/**
 * Folder pairs that import each other: two folders, neither inside the other (so `src/queue` and
 * `src/store`, or `src/sim/run` and `src/sim/faults`), each with a file that imports a file of the
 * other. A folder counts with everything under it.
 */
function foldersImportingEachOther(graph: Map<string, string[]>): string[] {
  const ancestors = (f: string): string[] => {
    const parts = f.split('/').slice(0, -1);
    return parts.map((_, i) => parts.slice(0, i + 1).join('/')).filter((d) => d !== 'src');
  };
  const arrows = new Set<string>();
  for (const [from, tos] of graph)
    for (const to of tos) {
      if (!graph.has(to)) continue;
      for (const a of ancestors(from))
        for (const b of ancestors(to)) if (a !== b && !a.startsWith(`${b}/`) && !b.startsWith(`${a}/`)) arrows.add(`${a} ${b}`);
    }
  return [...arrows]
    .map((arrow) => arrow.split(' ') as [string, string])
    .filter(([a, b]) => a < b && arrows.has(`${b} ${a}`))
    .map(([a, b]) => `${a} ↔ ${b}`)
    .sort();
}

function violations(dirs: string[], forbidden: (imported: string) => boolean): string[] {
  return dirs.flatMap(sourceFiles).flatMap((f) => [...closure(f)].filter(forbidden).map((bad) => `${f} → ${bad}`));
}

describe('layers', () => {
  it('the import scanner sees imports (a rule that could never fire would prove nothing)', () => {
    expect(importsOf('src/sim/store/sim-node.ts')).toContain('src/redis/keyspace.ts');
    expect(closure('src/sim/store/sim-node.ts')).toContain('src/redis/lua-engine.ts');
    expect(violations(['src/sim'], (f) => f.startsWith('src/redis/'))).not.toEqual([]);
  });

  it('the circle and folder-pair finders find what they look for', () => {
    const graph = new Map([
      ['src/a/x.ts', ['src/a/y.ts']],
      ['src/a/y.ts', ['src/b/z.ts']],
      ['src/b/z.ts', ['src/a/x.ts']],
      ['src/c/w.ts', ['src/c/w.ts']],
      ['src/d/e/v.ts', ['src/d/u.ts']],
      ['src/d/u.ts', ['src/d/e/v.ts']],
    ]);
    expect(importCircles(graph)).toEqual([['src/a/x.ts', 'src/a/y.ts', 'src/b/z.ts'], ['src/c/w.ts'], ['src/d/e/v.ts', 'src/d/u.ts']]);
    expect(foldersImportingEachOther(graph)).toEqual(['src/a ↔ src/b']);
  });

  it('no import circle in src/ (type-only imports count: a circle of types still ties the files together)', () => {
    expect(importCircles(importGraph())).toEqual([]);
  });

  it('no two folders of src/ import each other (a folder with everything under it; a folder and one inside it may)', () => {
    expect(foldersImportingEachOther(importGraph())).toEqual([]);
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

  it('src/model: the reference models (src/model/reference) stand alone, the history judge (the rest) never uses them, and neither reaches the queue, a store or the simulator', () => {
    const reference = sourceFiles('src/model/reference');
    expect(reference).toContain('src/model/reference/atomic-model.ts');
    expect(violations(['src/model/reference'], (f) => !f.startsWith('src/model/reference/'))).toEqual([]);
    const judge = sourceFiles('src/model').filter((f) => !f.startsWith('src/model/reference/'));
    expect(judge).toContain('src/model/checker.ts');
    const bad = judge.flatMap((f) => [...closure(f)].filter((i) => i.startsWith('src/model/reference/') || /^src\/(queue|store|redis|sim|real|testing)\//.test(i)).map((i) => `${f} → ${i}`));
    expect(bad).toEqual([]);
  });

  it('the model-check harness (src/testing/model-check) checks a queue against the reference models without the simulator', () => {
    expect(sourceFiles('src/testing/model-check')).toContain('src/testing/model-check/model-check.ts');
    expect(violations(['src/testing/model-check'], (f) => f.startsWith('src/sim/') || f.startsWith('src/real/'))).toEqual([]);
  });

  it('IoredisStore (real Redis) loads neither the simulator nor the in-process Redis', () => {
    const loaded = [...closure('src/store/ioredis-store.ts'), ...closure('src/store/index.ts')];
    expect(loaded.filter((f) => f.startsWith('src/sim/') || /^src\/redis\/(keyspace|lua-engine|sorted-set)\.ts$/.test(f))).toEqual([]);
  });
});
