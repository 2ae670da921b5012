/**
 * The code blocks of the README and of docs/*.md that CI runs against the packed package
 * (test/package/pack.test.ts), and the marker that exempts one.
 *
 * Run: every fenced block whose language is `ts`, `js`, `mjs` or `sh`, file by file in document order,
 * in one project that installed the packed package (so a block may use a file an earlier block of the
 * same page wrote). `ts` blocks are type-checked and then run as ES modules; `js` / `mjs` run as they are;
 * `sh` blocks run line by line with bash, each line expected to exit 0 unless it ends with the comment
 * `# exits N`. Blocks of other languages (`text`, `jsonl`, …) are data and are not run.
 *
 * Exempt: a block whose fence is directly preceded by the line
 *   <!-- not run by the docs test: REASON -->
 * (a reason is required). Only blocks that cannot run in an installed package belong there — the
 * registry install, and commands that need a clone of the repository — and the pack test lists the
 * exempt ones by name, so a new exemption is a deliberate change to the test too.
 */
export const RUN_LANGUAGES = ['ts', 'js', 'mjs', 'sh'] as const;
export type RunLanguage = (typeof RUN_LANGUAGES)[number];

export interface DocBlock {
  /** The page, relative to the package root (README.md, docs/CLI.md, …). */
  readonly file: string;
  readonly lang: RunLanguage;
  readonly code: string;
  /** 1-based line of the opening fence. */
  readonly line: number;
  /** Set when the block is exempt: the marker's reason. */
  readonly skip?: string;
}

const SKIP_MARKER = /^<!-- not run by the docs test: (.*\S.*) -->$/;

/** The runnable blocks of one markdown page, in order (exempt ones included, with their reason). */
export function docBlocks(file: string, markdown: string): DocBlock[] {
  const lines = markdown.split('\n');
  const blocks: DocBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^```([a-z]*)\s*$/.exec(lines[i]!);
    if (!open) continue;
    const end = lines.findIndex((l, j) => j > i && /^```\s*$/.test(l));
    if (end < 0) throw new Error(`${file}:${i + 1}: unclosed code block`);
    const lang = open[1]!;
    if ((RUN_LANGUAGES as readonly string[]).includes(lang)) {
      const marker = i > 0 ? SKIP_MARKER.exec(lines[i - 1]!) : null;
      const code = lines.slice(i + 1, end).join('\n') + '\n';
      blocks.push({ file, lang: lang as RunLanguage, code, line: i + 1, ...(marker ? { skip: marker[1]! } : {}) });
    }
    i = end;
  }
  return blocks;
}

/** A `sh` block's commands: one per non-empty, non-comment line, with the exit code it must give. */
export function shellCommands(code: string): { readonly command: string; readonly exit: number }[] {
  return code
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('#'))
    .map((l) => {
      const expected = /#\s*exits (\d+)\b/.exec(l);
      return { command: l, exit: expected ? Number(expected[1]) : 0 };
    });
}

/** A short name for a block in messages and in the exempt list: `docs/CLI.md:7`. */
export const blockName = (b: DocBlock): string => `${b.file}:${b.line}`;
