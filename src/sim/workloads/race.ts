import type { BaseQueue } from '../../queue/base-queue.js';
import type { ConsumeOptions } from '../../queue/dyno-queue.js';
import type { PoppedMessage } from '../../queue/message.js';
import type { PoppedBatch } from '../../queue/popped-batch.js';
import { DYNOMITE_SETTLE_MS } from '../../queue/options.js';
import type { WorkloadActor } from './context.js';
import type { Rng } from '../kernel/rng.js';
import { beginCall, recordedCall, type WorkloadContext } from './context.js';
import { ackOne } from './hold.js';
import { drawMessage } from './produce.js';
import { TURN_RACES, type RaceName } from './race-names.js';

/** Counts one occurrence of a race in this run. */
function raced(ctx: WorkloadContext, race: RaceName): void {
  ctx.races.set(race, (ctx.races.get(race) ?? 0) + 1);
}

/**
 * Two racer clients in two zones (the first and the last) that, during the safety phase, make in
 * turn: a long-poll `pop` aborted by its AbortSignal while it waits for more than it already leased
 * (the leased messages it returns are recorded as delivered, then acked); the same with `consume()`;
 * the same new id ensured by both at the same instant; a `setTimeout` of a pushed id started at the
 * same instant as a `popWithMsgId` of it by the other racer; a `setUnackTimeout` by a holder that
 * has just released its message, at the same instant as a `popWithMsgId` of it.
 * Each occurrence is counted in `ctx.races`.
 */
export async function raceLoop(ctx: WorkloadContext, a: WorkloadActor, b: WorkloadActor, rng: Rng, intervalMs: number): Promise<void> {
  let turn = 0;
  let ensured = 0;
  const live = () => !a.crashed && !b.crashed && ctx.time.now < ctx.safetyEnd;
  while (live()) {
    await a.sleep(intervalMs);
    if (!live() || ctx.pushedIds.length === 0) continue;
    const race = TURN_RACES[turn++ % TURN_RACES.length]!;
    let ok: boolean;
    if (race === 'abortAfterLease') ok = await abortAfterLease(ctx, b, rng);
    else if (race === 'consumeAbortedAfterLease') ok = await consumeAbortedAfterLease(ctx, b, rng);
    else if (race === 'ensureFromTwoShards') ok = await ensureFromTwoShards(ctx, a, b, rng, `r${ensured++}`);
    else if (race === 'extendVsPop') ok = await extendVsPop(ctx, b);
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

/** How the racers' consume() pops are seen: when each begins and what it returned (null: it threw). */
interface PopWatch {
  began(): void;
  ended(batch: PoppedBatch | null): void;
  /** Each delivered message's lease on the true clock (its pop's invocation + the lease), for its ack. */
  readonly leaseUntil: Map<string, number>;
}

/**
 * The queue's own consume() loop, each pop it makes recorded as a pop call: its batch (`unknown` when
 * it came back with a store error after leasing: the failed attempt may have leased more to nobody)
 * or its error. Only `pop` is observed (on an object whose prototype is the queue); the loop is the
 * queue's code. (The call counter then counts consume()'s pops as pops.)
 */
function recordedConsume(ctx: WorkloadContext, actor: WorkloadActor, options: ConsumeOptions, watch: PopWatch): AsyncIterableIterator<PoppedMessage> {
  const queue = actor.queue;
  const lease = ctx.config.queue.unackTimeoutMs;
  const observed = Object.create(queue) as BaseQueue;
  observed.pop = async (count, popOptions) => {
    const invokedAt = ctx.time.now;
    const call = beginCall(ctx, actor, 'pop', [count, popOptions]);
    watch.began();
    try {
      const batch = await queue.pop(count, popOptions);
      for (const m of batch) watch.leaseUntil.set(m.id, invokedAt + lease);
      call.returned(batch);
      watch.ended(batch);
      return batch;
    } catch (err) {
      call.threw(err);
      watch.ended(null);
      throw err;
    }
  };
  // The queue's own consume() (past the call counter's proxy, which would run it on the queue itself).
  const consume = (Object.getPrototypeOf(queue) as BaseQueue).consume;
  return consume.call(observed, options);
}

/** Acks every message a racer's consume() yields (each with the lease its pop gave it); false when the client crashed. */
async function ackAllYielded(ctx: WorkloadContext, actor: WorkloadActor, messages: AsyncIterableIterator<PoppedMessage>, watch: PopWatch): Promise<boolean> {
  for await (const message of messages) {
    if (actor.crashed) return false;
    if (!(await ackOne(ctx, actor, { message, leaseUntil: watch.leaseUntil.get(message.id)! }))) return false;
  }
  return !actor.crashed;
}

/**
 * `for await (const m of queue.consume({ batch, wait, signal }))` whose signal aborts while its first
 * pop waits for more than it leased: the loop yields what was leased, then ends. Each is acked.
 */
async function consumeAbortedAfterLease(ctx: WorkloadContext, actor: WorkloadActor, rng: Rng): Promise<boolean> {
  const w = ctx.config.workload;
  const stop = new AbortController();
  let popping = false;
  let abortedInFlight = false;
  void actor.sleep(rng.int(1, Math.max(1, w.pollWaitMs - 1))).then(() => {
    abortedInFlight = popping;
    stop.abort();
  });
  const watch: PopWatch = {
    leaseUntil: new Map(),
    began: () => {
      popping = true;
    },
    ended: (batch) => {
      popping = false;
      // One pop only: a batch that filled before the abort ends the loop too.
      stop.abort();
      if (abortedInFlight && batch && batch.length > 0) raced(ctx, 'consumeAbortedAfterLease');
    },
  };
  const messages = recordedConsume(ctx, actor, { batch: w.consumerBatch + 5, wait: w.pollWaitMs, signal: stop.signal }, watch);
  return ackAllYielded(ctx, actor, messages, watch);
}

/**
 * A holder's lease extension racing a pop of the same id: `b` pops a message of its shard and
 * releases it (a worker handing it back), then its `setUnackTimeout` with the old token (a heartbeat
 * timer that fires after the release) starts at the same instant as a `popWithMsgId` of it by the
 * same process (its next task; only a client of the message's shard can pop it by id).
 */
async function extendVsPop(ctx: WorkloadContext, b: WorkloadActor): Promise<boolean> {
  const w = ctx.config.workload;
  const lease = ctx.config.queue.unackTimeoutMs;
  const firstUntil = ctx.time.now + lease;
  const held = await recordedCall(ctx, b, 'pop', 1, { wait: w.pollWaitMs });
  if (!held) return false;
  const m = held.outcome === 'ok' ? held.value?.[0] : undefined;
  if (!m) return true;
  const id = m.id;
  const released = await recordedCall(ctx, b, 'release', id, m.token);
  if (!released) return false;
  if (released.outcome !== 'ok') return ackOne(ctx, b, { message: m, leaseUntil: firstUntil });
  const leaseUntil = ctx.time.now + lease;
  const [popped, extended] = await Promise.all([
    recordedCall(ctx, b, 'popWithMsgId', id),
    recordedCall(ctx, b, 'setUnackTimeout', id, 2 * lease, m.token),
  ]);
  if (!popped || !extended) return false;
  const taken = popped.outcome === 'ok' ? popped.value : null;
  // Raced: the released id was there for the pop to take while the stale extension ran.
  if (taken || extended.outcome === 'ok') raced(ctx, 'extendVsPop');
  if (taken && !(await ackOne(ctx, b, { message: taken, leaseUntil }))) return false;
  return true;
}

/** How many messages the reset racer pushes per turn on each shard: its own shard then holds some. */
const RESET_PUSH_PER_SHARD = 2;

/**
 * A third racer whose connection the server resets in the middle of a `consume()` batch (a CLIENT
 * KILL or a proxy's reset, an ordinary client event): each turn it pushes a few messages
 * (RESET_PUSH_PER_SHARD per shard) due three long-poll steps later, and at once runs
 * `consume({ batch, wait, onError })` on its own shard, so that its long-poll is already asking when
 * they fall due (the shard's consumers ask too: it gets some of them). The reset is aimed at the
 * quorum-connection request after the first message is leased: in atomic mode a long-poll attempt
 * after they became poppable (the batch asks one more than it pushed there, so the poll goes on), in
 * legacy mode the second message's claim (three requests per message). That request's reply is lost
 * and it fails at the request timeout; the pop returns what it had leased with the error
 * (PoppedBatch.error), the loop yields those, reports the error to onError and backs off. Counted when
 * the pop came back with leased messages and an error; every message yielded is acked.
 */
export async function resetRacerLoop(ctx: WorkloadContext, actor: WorkloadActor, rng: Rng, intervalMs: number): Promise<void> {
  let turn = 0;
  while (!actor.crashed && ctx.time.now < ctx.safetyEnd) {
    await actor.sleep(intervalMs);
    if (actor.crashed || ctx.time.now >= ctx.safetyEnd) return;
    if (!(await errorMidConsumeBatch(ctx, actor, rng, turn++))) return;
  }
}

async function errorMidConsumeBatch(ctx: WorkloadContext, actor: WorkloadActor, rng: Rng, turn: number): Promise<boolean> {
  const w = ctx.config.workload;
  const t = ctx.config.topology;
  const legacy = ctx.config.queue.mode === 'legacy';
  const delayMs = 3 * w.pollIntervalMs;
  // Atomic mode on Dynomite pops a message only once it has settled on every replica.
  const poppableAfterMs = delayMs + (!legacy && t.kind === 'dynomite' && t.zones.length > 1 ? DYNOMITE_SETTLE_MS : 0);
  const batch = Array.from({ length: RESET_PUSH_PER_SHARD * t.zones.length }, (_, i) => {
    const id = `c${turn}-${i}`;
    const priority = ctx.profile.maxPriority > 0 ? rng.int(0, ctx.profile.maxPriority) : 0;
    return { id, payload: `reset-${id}`, timeout: delayMs, priority, delayMs };
  });
  for (const m of batch) ctx.pushedIds.push(m.id);
  const pushed = await recordedCall(ctx, actor, 'push', batch);
  if (!pushed) return false;
  if (pushed.outcome !== 'ok') return true;
  for (const m of batch) ctx.outstanding.add(m.id);
  const own = batch.filter((m) => actor.shards.get(m.id) === actor.zone).length;
  if (own < (legacy ? 2 : 1)) return true;
  // Legacy: the first message's zadd, zrem and hget, then the second's zadd. Atomic: one script per
  // attempt, one attempt per long-poll step at most; counting from the first leaves a margin.
  const nth = legacy ? 4 : Math.ceil(poppableAfterMs / w.pollIntervalMs) + 2;
  const stop = new AbortController();
  const watch: PopWatch = {
    leaseUntil: new Map(),
    began: () => actor.resetConnectionAt(nth),
    ended: (popped) => {
      actor.resetConnectionAt(0);
      // One pop only: the loop ends after yielding its batch (and backing off after its error).
      stop.abort();
      if (popped && (popped.length > 0 || popped.keptBack !== undefined) && Object.hasOwn(popped, 'error')) raced(ctx, 'errorMidConsumeBatch');
    },
  };
  const onError = () => undefined;
  const options = { batch: legacy ? own : own + 1, wait: 2 * poppableAfterMs + w.pollWaitMs, signal: stop.signal, onError };
  return ackAllYielded(ctx, actor, recordedConsume(ctx, actor, options, watch), watch);
}
