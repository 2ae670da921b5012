// A worker process for test/examples/bullmq-recorder.test.ts: a recorded BullMQ worker that tells
// its parent (IPC) when it starts a job; HANG=1 makes it hang in every job, to be SIGKILLed.
import { fileSink, recordedWorker } from '../../examples/bullmq-recorder/recorder.mjs';

const { REDIS_PORT, QUEUE, HISTORY, NAME, HANG, LOCK_MS, STALLED_MS } = process.env;
const worker = recordedWorker(
  QUEUE,
  async (job) => {
    process.send?.({ started: String(job.id) });
    if (HANG === '1') await new Promise(() => undefined);
    await new Promise((r) => setTimeout(r, 5));
    return job.data.n;
  },
  {
    connection: { host: '127.0.0.1', port: Number(REDIS_PORT) },
    concurrency: 1,
    lockDuration: Number(LOCK_MS),
    stalledInterval: Number(STALLED_MS),
    maxStalledCount: 1,
  },
  fileSink(HISTORY),
  { process: NAME },
);
worker.on('error', (err) => process.send?.({ error: String(err) }));
await worker.waitUntilReady();
process.send?.({ ready: true });
process.on('message', async (m) => {
  if (m === 'close') {
    await worker.close();
    process.exit(0);
  }
});
