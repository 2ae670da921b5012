import { parentPort, workerData } from 'node:worker_threads';
import { HistoryFileError } from '../model/history-file.js';
import type { JudgeOptions, JudgeOverrides } from '../model/judge.js';
import { judgeStream, type StreamJudgement } from '../model/stream-judge.js';
import { fileLines } from './line-reader.js';

/** What `dynoq judge` gives its judging thread. */
export interface JudgeThreadInput {
  readonly file: string;
  readonly overrides: JudgeOverrides;
  readonly options: JudgeOptions;
}

/** What the judging thread answers: the judgement, the bad line, or an internal error's stack. */
export type JudgeThreadOutput =
  | { readonly judgement: StreamJudgement }
  | { readonly invalid: { readonly file: string; readonly line: number; readonly reason: string } }
  | { readonly crash: string };

/** The streaming judge on one file, in a thread of its own (see judgeInThread). */
async function answer({ file, overrides, options }: JudgeThreadInput): Promise<JudgeThreadOutput> {
  try {
    return { judgement: await judgeStream(fileLines(file), file, overrides, options) };
  } catch (err) {
    if (err instanceof HistoryFileError) return { invalid: { file: err.file, line: err.line, reason: err.reason } };
    return { crash: err instanceof Error ? (err.stack ?? err.message) : String(err) };
  }
}

parentPort!.postMessage(await answer(workerData as JudgeThreadInput));
