import type { WorkloadActor } from './context.js';
import type { Rng } from '../kernel/rng.js';
import { recordedCall, type WorkloadContext } from './context.js';
import { ackOne } from './hold.js';
import { drawMessage } from './produce.js';
import { RACE_NAMES, type RaceName } from './race-names.js';

/** Counts one occurrence of a race in this run. */
function raced(ctx: WorkloadContext, race: RaceName): void {
  ctx.races.set(race, (ctx.races.get(race) ?? 0) + 1);
}

/**
 * Two racer clients in two zones (the first and the last) that, during the safety phase, make in
 * turn: a long-poll `pop` aborted by its AbortSignal while it waits for more than it already leased
 * (the leased messages it returns are recorded as delivered, then acked); the same new id ensured
 * by both at the same instant; a `setTimeout` of a pushed id started at the same instant as a
 * `popWithMsgId` of it by the other racer. Each occurrence is counted in `ctx.races`.
 */
export async function raceLoop(ctx: WorkloadContext, a: WorkloadActor, b: WorkloadActor, rng: Rng, intervalMs: number): Promise<void> {
  let turn = 0;
  let ensured = 0;
  const live = () => !a.crashed && !b.crashed && ctx.time.now < ctx.safetyEnd;
  while (live()) {
    await a.sleep(intervalMs);
    if (!live() || ctx.pushedIds.length === 0) continue;
    const race = RACE_NAMES[turn++ % RACE_NAMES.length]!;
    let ok: boolean;
    if (race === 'abortAfterLease') ok = await abortAfterLease(ctx, b, rng);
    else if (race === 'ensureFromTwoShards') ok = await ensureFromTwoShards(ctx, a, b, rng, `r${ensured++}`);
    else ok = await rescheduleVsPop(ctx, a, b, rng);
    if (!ok) return;
  }
}

/** A long-poll for more than the shard holds, aborted part-way: whatever it leased comes back and is acked. */
async function abortAfterLease(ctx: WorkloadContext, actor: WorkloadActor, rng: Rng): Promise<boolean> {
  const w = ctx.config.workload;
  const stop = new AbortController();
  let answered = false;
  let abortedInFlight = false;
  void actor.sleep(rng.int(1, Math.max(1, w.pollWaitMs - 1))).then(() => {
    if (answered) return;
    abortedInFlight = true;
    stop.abort();
  });
  const invokedAt = ctx.time.now;
  const leaseUntil = invokedAt + ctx.config.queue.unackTimeoutMs;
  const done = await recordedCall(ctx, actor, 'pop', w.consumerBatch + 5, { wait: w.pollWaitMs, signal: stop.signal });
  answered = true;
  if (!done) return false;
  const got = done.value ?? [];
  if (done.outcome === 'ok' && abortedInFlight && got.length > 0) raced(ctx, 'abortAfterLease');
  for (const message of done.outcome === 'ok' ? got : []) if (!(await ackOne(ctx, actor, { message, leaseUntil }))) return false;
  return true;
}

/** One new message ensured by both racers at once, each on its own zone's shard. */
async function ensureFromTwoShards(ctx: WorkloadContext, a: WorkloadActor, b: WorkloadActor, rng: Rng, id: string): Promise<boolean> {
  const m = drawMessage(rng, ctx.profile, id, `ensured-${id}`);
  ctx.pushedIds.push(id);
  const ensure = (actor: WorkloadActor) => recordedCall(ctx, actor, 'ensure', m);
  const [da, db] = await Promise.all([ensure(a), ensure(b)]);
  if (!da || !db) return false;
  if (da.outcome !== 'fail' || db.outcome !== 'fail') raced(ctx, 'ensureFromTwoShards');
  if ((da.outcome === 'ok' && da.value) || (db.outcome === 'ok' && db.value)) ctx.outstanding.add(id);
  return true;
}

/** A reschedule of a pushed id and a pop of it by id, started at the same instant by two clients. */
async function rescheduleVsPop(ctx: WorkloadContext, a: WorkloadActor, b: WorkloadActor, rng: Rng): Promise<boolean> {
  const id = rng.pick(ctx.pushedIds);
  const delayMs = rng.int(0, 2_000);
  const invokedAt = ctx.time.now;
  const leaseUntil = invokedAt + ctx.config.queue.unackTimeoutMs;
  const [popped, rescheduled] = await Promise.all([
    recordedCall(ctx, a, 'popWithMsgId', id),
    recordedCall(ctx, b, 'setTimeout', id, delayMs),
  ]);
  if (!popped || !rescheduled) return false;
  // Raced: the id was there for at least one of them (the pop leased it or the reschedule moved it).
  if ((popped.outcome === 'ok' && popped.value) || rescheduled.outcome === 'ok') raced(ctx, 'rescheduleVsPop');
  const m = popped.value;
  if (popped.outcome === 'ok' && m && !(await ackOne(ctx, a, { message: m, leaseUntil }))) return false;
  return true;
}
