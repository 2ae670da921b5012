import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import * as z from 'zod';
import { issueLines } from '../../runtime/zod-issues.js';
import { PROPERTY_NAMES } from '../../model/properties.js';
import { SCRIPT_MODES } from '../../redis/script-mode.js';
import type { SeedOutcome } from '../../sim/campaign/explore.js';
import { CliError } from '../cli-error.js';
import { RACE_NAMES } from '../../sim/workloads/race-names.js';
import { EXIT } from '../exit-codes.js';
import { emitJson, writeOutput } from '../output.js';

const outcomeSchema = z.object({
  seed: z.string().min(1),
  failing: z.array(z.enum(PROPERTY_NAMES)),
  // Absent in results files written before explore counted what it exercised.
  exercised: z.array(z.enum(PROPERTY_NAMES)).default([]),
  calls: z.array(z.string()).default([]),
  // Absent in results files written before explore counted the full profile's races.
  races: z.array(z.enum(RACE_NAMES)).default([]),
  gate: z.array(z.enum(PROPERTY_NAMES)).optional(),
  mechanisms: z.array(z.string()).default([]),
  traceHash: z.string().min(1),
  scenario: z.looseObject({ name: z.string().regex(/^[a-z0-9-]+$/) }).optional(),
  shrinkRuns: z.number().int().nonnegative().optional(),
  shrinkStoppedByTime: z.boolean().optional(),
  scripts: z.enum(SCRIPT_MODES).optional(),
  luaConfirms: z.boolean().optional(),
});

/** The results files named: files as given, folders as every `*.jsonl` in them. */
function resultFiles(paths: readonly string[]): string[] {
  return paths.flatMap((p) => {
    let isDir: boolean;
    try {
      isDir = statSync(p).isDirectory();
    } catch {
      throw new CliError(`no such file or folder: ${p}`);
    }
    return isDir ? readdirSync(p).filter((f) => f.endsWith('.jsonl')).sort().map((f) => join(p, f)) : [p];
  });
}

/** Reads explore results files (one JSON line per seed); a bad line is an input error naming file and line. */
function readOutcomes(files: readonly string[]): SeedOutcome[] {
  const bySeed = new Map<string, SeedOutcome & { from: string }>();
  for (const file of files) {
    readFileSync(file, 'utf8').split('\n').forEach((line, i) => {
      if (line.trim() === '') return;
      let parsed: SeedOutcome;
      try {
        const read = outcomeSchema.parse(JSON.parse(line));
        // Results written before the gate existed: every violated property failed it.
        parsed = { ...read, gate: read.gate ?? read.failing } as SeedOutcome;
      } catch (err) {
        const why = err instanceof z.ZodError ? issueLines(err.issues, '(line)').join('; ') : (err as Error).message;
        throw new CliError(`${file}:${i + 1}: not an explore result (${why})`);
      }
      const seen = bySeed.get(parsed.seed);
      if (seen && seen.traceHash !== parsed.traceHash) {
        throw new CliError(`seed ${parsed.seed} has different traces in ${seen.from} and ${file}: were the shards run by different dynoq versions?`);
      }
      bySeed.set(parsed.seed, { ...parsed, from: file });
    });
  }
  return [...bySeed.values()].map(({ from: _from, ...o }) => o).sort((a, b) => a.seed.localeCompare(b.seed, 'en', { numeric: true }));
}

/**
 * `dynoq merge RESULTS… --out DIR`: combines the results of explore shards into one results file and
 * one folder of shrunk scenarios. Exit 1 when any shard found a violation that fails its gate
 * (explore --require / --known), 0 when none did; findings outside the gate are counted, not failed.
 */
export function mergeCommand(paths: readonly string[], flags: { out: string; json?: boolean }): number {
  const files = resultFiles(paths);
  if (files.length === 0) throw new CliError(`no results files (*.jsonl) in ${paths.join(', ')}`);
  const outcomes = readOutcomes(files);
  const findings = outcomes.filter((o) => o.gate.length > 0);
  const reported = outcomes.filter((o) => o.failing.length > 0 && o.gate.length === 0);
  writeOutput(join(flags.out, 'explore.jsonl'), outcomes.map((o) => `${JSON.stringify(o)}\n`).join(''));
  const written: string[] = [];
  for (const o of findings) {
    if (!o.scenario) continue;
    const file = join(flags.out, `${o.scenario.name}.json`);
    writeOutput(file, `${JSON.stringify(o.scenario, null, 2)}\n`);
    written.push(file);
  }
  const perProperty = Object.fromEntries(PROPERTY_NAMES.map((p) => [p, findings.filter((o) => o.failing.includes(p)).length]));
  console.log(`merged ${outcomes.length} seed(s) from ${files.length} file(s): ${findings.length} failing the gate, ${reported.length} reported only (outside --require or known)`);
  for (const p of PROPERTY_NAMES) if (perProperty[p]! > 0) console.log(`  ${p}: ${perProperty[p]} seed(s)`);
  for (const f of written) console.log(`  ${f}`);
  if (flags.json) emitJson({ files, explored: outcomes.length, found: findings.length, reported: reported.length, perProperty, scenarios: written });
  return findings.length > 0 ? EXIT.violated : EXIT.ok;
}
