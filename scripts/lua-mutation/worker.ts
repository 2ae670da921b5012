import { parentPort } from 'node:worker_threads';
import { judgeMutant } from './kill-suite.js';

/** Judges each mutant it is sent, one at a time; the parent terminates it if one never ends. */
parentPort!.on('message', async ({ index, script, lua }: { index: number; script: string; lua: string }) => {
  try {
    parentPort!.postMessage({ index, verdict: await judgeMutant(script, lua) });
  } catch (err) {
    parentPort!.postMessage({ index, verdict: { killedBy: 'simulation', detail: `threw: ${String(err).split('\n')[0]}` } });
  }
});
