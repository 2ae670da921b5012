import { accessSync, closeSync, constants, existsSync, mkdirSync, openSync, statSync, writeFileSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import { CliError } from './cli-error.js';

/**
 * Where the CLI's words go. With `--json`, stdout carries exactly one JSON document (emitJson) and
 * every human line — progress, notes, summaries — goes to stderr.
 */
let jsonMode = false;

export function enableJsonMode(): void {
  if (jsonMode) return;
  jsonMode = true;
  console.log = (...args: unknown[]) => console.error(...args);
  console.info = console.log;
}

export function isJsonMode(): boolean {
  return jsonMode;
}

let emitted = false;

/** The one JSON document of a `--json` run. */
export function emitJson(doc: unknown): void {
  emitted = true;
  process.stdout.write(`${JSON.stringify(doc, null, 2)}\n`);
}

/** A `--json` run that failed still gives its one document (README): what went wrong and the exit code. */
export function emitJsonError(message: string, exitCode: number): void {
  if (!emitted) emitJson({ error: message, exitCode });
}

/**
 * Makes sure `path` can be written — its folder created and writable, the path not a folder — so that
 * a long command fails at once (a CliError naming the path) rather than after its work.
 */
export function prepareOutput(path: string): void {
  try {
    mkdirSync(dirname(path), { recursive: true });
    accessSync(dirname(path), constants.W_OK);
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    const why = (e.code === 'EEXIST' || e.code === 'ENOTDIR') && e.path ? `${e.path} is a file, not a folder` : e.message;
    throw new CliError(`cannot write ${path}: ${why}`);
  }
  if (existsSync(path) && statSync(path).isDirectory()) throw new CliError(`cannot write ${path}: it is a folder`);
}

/** Writes an output file, creating its folder first (`--html out/x.html` with no out/ yet). */
export function writeOutput(path: string, text: string): void {
  prepareOutput(path);
  writeFileSync(path, text);
}

/** Writes an output file from pieces, one after the other (a large page is never held as one string). */
export function writeOutputPieces(path: string, pieces: Iterable<string>): void {
  prepareOutput(path);
  const fd = openSync(path, 'w');
  try {
    for (const piece of pieces) writeSync(fd, piece);
  } finally {
    closeSync(fd);
  }
}

/** True when the user asked for no colour (https://no-color.org) or stderr is not a terminal. */
export function colourAllowed(): boolean {
  const noColor = process.env.NO_COLOR;
  return process.stderr.isTTY === true && (noColor === undefined || noColor === '') && process.env.TERM !== 'dumb';
}
