import { fork, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { judgeHistory } from '../../src/model/judge.js';
// @ts-expect-error: the example is plain JavaScript, as a user would write it
import { fileSink, recordedAdd, runLine } from '../../examples/bullmq-recorder/recorder.mjs';
import { redisRequired, redisServerBinary, startRedisServer, type RedisServer } from '../support/redis-server.js';

// Issue 27, item 3: the BullMQ recorder example on a real redis-server. One worker is SIGKILLed in
// the middle of a job; BullMQ's stalled-job checker re-queues it and the other worker processes it.
// The judged history must show that job delivered twice (an allowed duplicate) and nothing lost.

const available = redisServerBinary() !== null;
if (!available && redisRequired) throw new Error('REQUIRE_REDIS=1 but redis-server is not installed');

const WORKER = fileURLToPath(new URL('./bullmq-worker.mjs', import.meta.url));
const LOCK_MS = 1_000;
const STALLED_MS = 500;
const JOBS = 8;
/** BullMQ's bound: a stalled job goes back within two stalled checks after its lock ran out (plus slack for a busy machine). */
const RECOVERY_MS = 2 * STALLED_MS + 1_000;

type FromWorker = { ready?: true; started?: string; error?: string };

function startWorker(env: Record<string, string>): { child: ChildProcess; next: (want: (m: FromWorker) => boolean) => Promise<FromWorker> } {
  const child = fork(WORKER, [], { env: { ...process.env, ...env }, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const seen: FromWorker[] = [];
  const waiting: { want: (m: FromWorker) => boolean; resolve: (m: FromWorker) => void }[] = [];
  child.on('message', (m: FromWorker) => {
    seen.push(m);
    for (const w of [...waiting]) if (w.want(m)) waiting.splice(waiting.indexOf(w), 1) && w.resolve(m);
  });
  const next = (want: (m: FromWorker) => boolean) =>
    new Promise<FromWorker>((resolve, reject) => {
      const found = seen.find(want);
      if (found) return resolve(found);
      waiting.push({ want, resolve });
      child.once('exit', (code, signal) => reject(new Error(`worker exited (${code ?? signal}) before the expected message`)));
    });
  return { child, next };
}

function exited(child: ChildProcess): Promise<void> {
  return child.exitCode !== null || child.signalCode !== null ? Promise.resolve() : new Promise((r) => child.once('exit', () => r()));
}

describe.runIf(available)('examples/bullmq-recorder on a real redis-server', () => {
  let server: RedisServer;
  const dir = mkdtempSync(join(tmpdir(), 'dynoq-bullmq-'));
  const children: ChildProcess[] = [];

  beforeAll(async () => {
    server = await startRedisServer();
  }, 30_000);

  afterAll(async () => {
    for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
    await Promise.all(children.map(exited));
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('a worker killed mid-job: the stalled job is re-processed (a duplicate) and nothing is lost', async () => {
    const history = join(dir, 'history.jsonl');
    writeFileSync(history, `${runLine({ stalledInterval: STALLED_MS, recoveryBoundMs: RECOVERY_MS })}\n`);
    const sink = fileSink(history);
    const connection = { host: '127.0.0.1', port: server.port };
    const queue = new Queue('jobs', { connection });
    const env = { REDIS_PORT: String(server.port), QUEUE: 'jobs', HISTORY: history, LOCK_MS: String(LOCK_MS), STALLED_MS: String(STALLED_MS) };
    try {
      for (let n = 0; n < JOBS; n++) await recordedAdd(queue, sink, { process: 'producer' }, 'work', { n }, { jobId: `job-${n}` });

      // The victim takes the first job and hangs in it; it is killed there, holding the job's lock.
      const victim = startWorker({ ...env, NAME: 'victim', HANG: '1' });
      children.push(victim.child);
      const { started: stalledJob } = await victim.next((m) => m.started !== undefined);
      victim.child.kill('SIGKILL');
      await exited(victim.child);

      // The survivor processes the rest, and the stalled job once BullMQ's stalled check re-queues it.
      const survivor = startWorker({ ...env, NAME: 'survivor' });
      children.push(survivor.child);
      await survivor.next((m) => m.ready === true);
      const deadline = Date.now() + 20_000;
      while (((await queue.getJobCounts('completed')).completed ?? 0) < JOBS) {
        if (Date.now() > deadline) throw new Error(`not every job completed: ${JSON.stringify(await queue.getJobCounts())}`);
        await new Promise((r) => setTimeout(r, 50));
      }
      // Recovery is judged where its deadline falls inside the run (lease end + stalled check period +
      // recovery bound): the survivor keeps running until then, and the run ends when it stops.
      const first = JSON.parse(readFileSync(history, 'utf8').split('\n').find((l) => l.includes('"deliver"') && l.includes('"victim"'))!) as { leaseUntil: number };
      const judgedUntil = first.leaseUntil + STALLED_MS + RECOVERY_MS + 50;
      while (Date.now() < judgedUntil) await new Promise((r) => setTimeout(r, 50));
      survivor.child.send('close');
      await exited(survivor.child);
      const end = Date.now();

      const text = readFileSync(history, 'utf8');
      const { report, history: ops } = judgeHistory(text, { end }, history);
      const deliveries = ops.filter((o) => o.type === 'deliver' && o.id === stalledJob);
      expect(deliveries.map((o) => o.process)).toEqual(['victim', 'survivor']);
      // the re-delivery came after the victim's lock ran out, as BullMQ promises
      expect(deliveries[1]!.invokedAt).toBeGreaterThanOrEqual(deliveries[0]!.invokedAt + LOCK_MS);
      expect(report.pushed).toBe(JOBS);
      expect(report.acked).toBe(JOBS);
      expect(report.deliveries).toBe(JOBS + 1);
      expect(report.violations.filter((v) => v.kind === 'duplicate').map((v) => v.id)).toEqual([stalledJob]);
      expect(report.properties.atLeastOnce).toBe(true);
      expect(report.properties.noDoublePop).toBe(true);
      expect(report.properties.unackRecovery).toBe(true);
      expect(report.exercised.unackRecovery).toBe(true);
      expect(report.violations.filter((v) => v.kind !== 'duplicate')).toEqual([]);
    } finally {
      await queue.close();
    }
  }, 30_000);
});
