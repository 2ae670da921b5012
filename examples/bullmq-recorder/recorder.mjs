// A recorder for BullMQ: writes what producers and workers did as a dynoq history (format version 2,
// one JSON line per operation; see "Judging your own history" in dynoq's README), so that
// `npx dynoq judge history.jsonl` can tell whether BullMQ kept at-least-once on your deployment.
//
//   push    = queue.add (invoked → returned; a Redis error after sending is `unknown`)
//   deliver = a worker starting a job (BullMQ moved it to active and locked it for lockDuration)
//   ack     = the job completed (the processor returned → BullMQ's 'completed' event)
//   release = the processor threw (BullMQ moves the job to failed, or back to wait for a retry)
//
// A stalled job (its worker died or blocked the event loop past lockDuration) is re-queued by
// BullMQ's stalled-job checker and shows as a second delivery: a duplicate, which at-least-once
// allows. Every worker must record under its own `process` name, and every recorder must use one
// clock (Date.now on NTP-synced hosts). Written against the documented format only: it imports
// nothing from dynoq.
import { appendFileSync } from 'node:fs';
import { Worker } from 'bullmq';

/** A sink that appends each line to a file synchronously: lines survive a SIGKILL of the process. */
export function fileSink(path) {
  return (line) => appendFileSync(path, `${line}\n`);
}

/**
 * The history's `run` line: BullMQ's stalled-job check is the "reaper" (a stalled job is moved
 * back after its lock expired, within two checks), so it is the reaper period of the recovery bound.
 */
export function runLine({ stalledInterval, recoveryBoundMs = 2 * stalledInterval + 2_000 }) {
  return JSON.stringify({ type: 'run', version: 2, reaperIntervalMs: stalledInterval, recoveryBoundMs });
}

/**
 * queue.add, recorded as a push. Give jobs an id (`opts.jobId`): a push whose outcome is unknown
 * (the call threw) can be recorded only when its id is known.
 */
export async function recordedAdd(queue, sink, { process = 'producer', clock = Date.now } = {}, name, data, opts = {}) {
  const invokedAt = clock();
  const delayMs = opts.delay ?? 0;
  try {
    const job = await queue.add(name, data, opts);
    sink(JSON.stringify({ type: 'push', process, id: String(job.id), invokedAt, completedAt: clock(), outcome: 'ok', delayMs }));
    return job;
  } catch (err) {
    if (opts.jobId !== undefined) {
      sink(JSON.stringify({ type: 'push', process, id: String(opts.jobId), invokedAt, completedAt: clock(), outcome: 'unknown', delayMs }));
    }
    throw err;
  }
}

/**
 * A BullMQ Worker whose jobs are recorded as deliveries, completions as acks and failures as
 * releases. `options` are the Worker's (connection, lockDuration, stalledInterval…); keep
 * `concurrency` at 1 or give each worker process its own name per slot.
 *
 * The lease of a delivery is one lockDuration from the job's start: BullMQ renews the lock while
 * the processor runs, but the recorder cannot see the renewals, so it claims only the first lock
 * period (a re-delivery after it is never blamed as a double pop).
 */
export function recordedWorker(queueName, processor, options, sink, { process, clock = Date.now } = {}) {
  if (!process) throw new Error('recordedWorker: give each worker a process name');
  const lockDuration = options.lockDuration ?? 30_000;
  const returnedAt = new Map();
  const worker = new Worker(
    queueName,
    async (job, token) => {
      const startedAt = clock();
      sink(JSON.stringify({ type: 'deliver', process, id: String(job.id), invokedAt: startedAt, completedAt: startedAt, outcome: 'ok', leaseUntil: startedAt + lockDuration, via: 'schedule' }));
      try {
        return await processor(job, token);
      } finally {
        returnedAt.set(String(job.id), clock());
      }
    },
    options,
  );
  const settled = (type) => (job) => {
    if (!job) return;
    const id = String(job.id);
    const invokedAt = returnedAt.get(id) ?? clock();
    returnedAt.delete(id);
    sink(JSON.stringify({ type, process, id, invokedAt, completedAt: Math.max(invokedAt, clock()), outcome: 'ok' }));
  };
  worker.on('completed', settled('ack'));
  worker.on('failed', settled('release'));
  return worker;
}
