import { HistoryFileError } from '../model/history-file.js';
import type { StreamJudgement } from '../model/stream-judge.js';
import { moduleWorker } from '../runtime/module-worker.js';
import type { JudgeThreadInput, JudgeThreadOutput } from './judge-thread.js';

/**
 * The judging thread's young generation, MB. The judge makes a few short-lived objects per line, by
 * the million; V8's default young generation fills every few thousand lines and promotes what is
 * still open then, for the old generation to collect again. A larger one takes about a tenth off the
 * judge's CPU time (docs/BENCHMARKS.md). It changes no result.
 */
const YOUNG_GENERATION_MB = 192;

/** judgeStream on a history file, in a worker thread with a larger young generation; a bad line throws HistoryFileError as judgeStream does. */
export async function judgeInThread(input: JudgeThreadInput): Promise<StreamJudgement> {
  const worker = moduleWorker('judge-thread', import.meta.url, { workerData: input, resourceLimits: { maxYoungGenerationSizeMb: YOUNG_GENERATION_MB } });
  const out = await new Promise<JudgeThreadOutput>((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
    worker.once('exit', (code) => reject(new Error(`the judging thread exited (code ${code}) without an answer`)));
  });
  await worker.terminate();
  if ('judgement' in out) return out.judgement;
  if ('invalid' in out) throw new HistoryFileError(out.invalid.file, out.invalid.line, out.invalid.reason);
  throw new Error(`the judging thread failed: ${out.crash}`);
}
