import { execFileSync } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { basename, dirname, join, posix, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { docBlocks, shellCommands } from './doc-blocks.js';

/**
 * The README and docs/*.md say what is true now: no commit hashes, no issue numbers (history goes to
 * CHANGELOG.md). Exempt, because a command writes them:
 * - docs/GUARANTEES.md (`npm run guarantees`: mechanism scenarios are named by a content hash);
 * - docs/MUTATION-LUA.md (`npm run mutation:lua`: its header names the commit it measured);
 * - in docs/BENCHMARKS.md, the blocks between `<!-- measured:NAME -->` markers, for hashes only
 *   (`npm run bench:report` names the commit it measured and the benchmarks print trace-hash prefixes).
 */
const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const GENERATED = new Set(['docs/GUARANTEES.md', 'docs/MUTATION-LUA.md']);

export const pages = (): string[] => ['README.md', ...readdirSync(join(root, 'docs')).filter((f) => f.endsWith('.md')).sort().map((f) => `docs/${f}`)];

/** A word of 7–40 hexadecimal digits with at least one letter: a (short or full) commit hash. */
const HASH = /\b(?=[0-9a-f]*[a-f])(?=[0-9a-f]*[0-9])[0-9a-f]{7,40}\b/g;
/** `issue 17`, `issues 12, 16`, `#31`. */
const ISSUE = /\bissues? #?\d+|(?<![\w&])#\d+\b/gi;

export function commitHashes(text: string): string[] {
  return [...text.matchAll(HASH)].map((m) => m[0]);
}
export function issueNumbers(text: string): string[] {
  return [...text.matchAll(ISSUE)].map((m) => m[0]);
}
/** The text bench:report does not write (its measured blocks cut out). */
export function withoutMeasuredBlocks(text: string): string {
  return text.replace(/<!-- measured:([\w-]+) -->[\s\S]*?<!-- \/measured:\1 -->/g, '');
}

describe('README.md and docs/*.md: current, no history', () => {
  it('the detectors find what they look for, and nothing else', () => {
    expect(commitHashes('measured at c945a7a, then 3ae427c4e1f0 and f3e3bfe0123456789abcdef0123456789abcdef0')).toEqual(['c945a7a', '3ae427c4e1f0', 'f3e3bfe0123456789abcdef0123456789abcdef0']);
    // Numbers, words, epoch times and 64-digit trace hashes are not commits.
    expect(commitHashes('1,000,000 messages at 1700000000000; effaced; sha256 ' + 'ab12'.repeat(16))).toEqual([]);
    expect(issueNumbers('before issue 15, issues 12, 16, 17 and #31')).toEqual(['issue 15', 'issues 12', '#31']);
    expect(issueNumbers('a top-level issue in zod; `return #due`; &#39;')).toEqual([]);
    expect(withoutMeasuredBlocks('a <!-- measured:sim -->commit 3ae427c<!-- /measured:sim --> b')).toBe('a  b');
  });

  it.each(pages().filter((p) => !GENERATED.has(p)))('%s names no commit hash and no issue number', (page) => {
    const text = readFileSync(join(root, page), 'utf8');
    const prose = page === 'docs/BENCHMARKS.md' ? withoutMeasuredBlocks(text) : text;
    expect({ page, hashes: commitHashes(prose), issues: issueNumbers(text) }).toEqual({ page, hashes: [], issues: [] });
  });

  it('BENCHMARKS.md keeps every block npm run bench:report rewrites (scripts/bench-report.ts)', () => {
    const text = readFileSync(join(root, 'docs', 'BENCHMARKS.md'), 'utf8');
    const script = readFileSync(join(root, 'scripts', 'bench-report.ts'), 'utf8');
    const names = [...script.matchAll(/\{ name: '([\w-]+)'|name: '([\w-]+)',/g)].map((m) => m[1] ?? m[2]);
    expect(names.length).toBeGreaterThanOrEqual(6);
    for (const name of names) {
      expect(text, name).toMatch(new RegExp(`<!-- measured:${name} -->[\\s\\S]*?<!-- /measured:${name} -->`));
    }
  });

  it('the README stays short and keeps the two set-up commands CI relies on', () => {
    const readme = readFileSync(join(root, 'README.md'), 'utf8');
    expect(readme.split('\n').length).toBeLessThanOrEqual(250);
    expect(readme).toContain('npm ci && npm start');
    expect(readme).toContain('npm ci && npm test');
  });

  it('an exempt block needs a reason; sh lines say when they exit non-zero', () => {
    const page = ['<!-- not run by the docs test: needs the repository -->', '```sh', 'npm ci', '```', '<!-- not run by the docs test:  -->', '```ts', 'x', '```', '```text', 'y', '```'].join('\n');
    const blocks = docBlocks('p.md', page);
    expect(blocks.map((b) => [b.lang, b.skip ?? null])).toEqual([['sh', 'needs the repository'], ['ts', null]]);
    expect(shellCommands('# a comment\nnpx dynoq sim   # exits 1: on purpose\n\nnpx dynoq --version\n')).toEqual([
      { command: 'npx dynoq sim   # exits 1: on purpose', exit: 1 },
      { command: 'npx dynoq --version', exit: 0 },
    ]);
  });
});

/**
 * A document is cited by its path (`docs/CHECKER.md`, `CHECKER.md` beside it, `../shared/SPEC.md`) or by
 * a section of it (`docs/CHECKER.md §3.2`, `[CHECKER.md](CHECKER.md) §3`, `SPEC §6`): the section must be a
 * heading of that document. Document names are capitals (README.md, docs/CHECKER.md), which keeps
 * file names a test writes (`g.md`, `out/G.md`) out of it.
 */
const DOC_PATH = /(?<![\w/.-])((?:\.{1,2}\/|[\w-]+\/)*[A-Z][A-Z0-9_-]+\.md)\b/g;
const SECTION_CITE = /(?<![\w/.-])((?:\.{1,2}\/|[\w-]+\/)*[A-Z][\w-]*(?:\.md)?)\)? §(\d+(?:\.\d+)*)/g;

/** Where a cited document resolves, from the citing file: beside it, from the root, or by a bare name. */
export function resolveDocument(tracked: ReadonlySet<string>, from: string, cited: string): string | undefined {
  const name = cited.endsWith('.md') ? cited : `${cited}.md`;
  const candidates = [posix.normalize(posix.join(posix.dirname(from), name)), posix.normalize(name)];
  const found = candidates.find((c) => !c.startsWith('..') && tracked.has(c));
  if (found !== undefined || name.includes('/')) return found;
  return [...tracked].find((f) => basename(f) === name);
}

/** Every citation in `text` of a document (or a section of one) the repository does not contain. */
export function missingCitations(tracked: ReadonlySet<string>, from: string, text: string, read: (path: string) => string): string[] {
  const missing: string[] = [];
  for (const [, cited = ''] of text.matchAll(DOC_PATH)) {
    if (resolveDocument(tracked, from, cited) === undefined) missing.push(cited);
  }
  for (const [, cited = '', section = ''] of text.matchAll(SECTION_CITE)) {
    const doc = resolveDocument(tracked, from, cited);
    const heading = new RegExp(`^#+ §${section.replace(/\./g, '\\.')}(?![\\d.]*\\d)`, 'm');
    if (doc === undefined || !heading.test(read(doc))) missing.push(`${cited} §${section}`);
  }
  return missing;
}

describe('every file cites only documents the repository contains', () => {
  const tracked = new Set(
    execFileSync('git', ['ls-files'], { cwd: root, encoding: 'utf8' })
      .split('\n')
      .filter((f) => f !== '' && !f.split('/').includes('node_modules')),
  );
  const read = (path: string): string => readFileSync(join(root, path), 'utf8');
  // This file is left out: the detector's own test above cites missing documents on purpose.
  const text = [...tracked].filter((f) => !/\.(png|jpe?g|gif|ico|gz|tgz)$/.test(f) && f !== 'test/package/docs-hygiene.test.ts');

  it('the detector finds a missing document, a section that does not exist and a path out of the repository', () => {
    const files = new Set(['docs/CHECKER.md', 'README.md', 'src/a.ts']);
    const docs: Record<string, string> = { 'docs/CHECKER.md': '# Checker\n## §3 Definitions\n### §3.2 Held\n', 'README.md': '' };
    const cite = (from: string, t: string): string[] => missingCitations(files, from, t, (p) => docs[p] ?? '');
    expect(cite('src/a.ts', '// SPEC §6.1, docs/CHECKER.md §3.2, CHECKER.md §3, docs/CHECKER.md §4, §3.21 of nothing')).toEqual(['SPEC §6.1', 'docs/CHECKER.md §4']);
    expect(cite('src/a.ts', 'see ../shared/SPEC.md, docs/NOPE.md, CHECKER.md, ../../README.md, out/g.md')).toEqual(['../shared/SPEC.md', 'docs/NOPE.md', '../../README.md']);
    expect(cite('docs/CHECKER.md', '[the readme](../README.md), [here](CHECKER.md#held), [CHECKER.md](CHECKER.md) §3.2, [it](CHECKER.md) §9')).toEqual(['CHECKER.md §9']);
  });

  it.each(text)('%s', (file) => {
    expect(missingCitations(tracked, file, read(file), read)).toEqual([]);
  });
});
