import { METHOD_HISTORY } from '../../model/method-history.js';
import type { AckItem } from '../../queue/dyno-queue.js';
import type { PoppedMessage } from '../../queue/message.js';
import type { WorkloadActor } from './context.js';
import type { Rng } from '../kernel/rng.js';
import { beginCall, recordedCall, sleep, type Recorded, type WorkloadContext } from './context.js';
import { ackItem, ackOne, workOn, type Holding } from './hold.js';
import type { ConsumerLoop } from '../settings/workload-profile.js';

/** Deliveries of a pop that returned: each leased until its invocation + the lease, on the true clock. */
function holdings(ctx: WorkloadContext, invokedAt: number, messages: readonly PoppedMessage[]): Holding[] {
  return messages.map((message) => ({ message, leaseUntil: invokedAt + ctx.config.queue.unackTimeoutMs }));
}

/**
 * A recorded pop (pop or bulkPop, long-polling `wait`): the messages it returned, [] when it failed
 * (after a pause of `wait`, so that a dead store is not hammered), null when the client crashed.
 */
async function recordedPop(ctx: WorkloadContext, actor: WorkloadActor, bulk: boolean): Promise<Holding[] | null> {
  const w = ctx.config.workload;
  const invokedAt = ctx.time.now;
  const done = await recordedCall(ctx, actor, bulk ? 'bulkPop' : 'pop', w.consumerBatch, { wait: w.pollWaitMs });
  if (!done) return null;
  if (done.outcome !== 'ok') await sleep(actor, w.pollWaitMs);
  return holdings(ctx, invokedAt, done.value ?? []);
}

/** pop + work + ack, one call each: the loop every profile started with. */
async function popAck(ctx: WorkloadContext, actor: WorkloadActor, rng: Rng): Promise<void> {
  while (!actor.crashed && !ctx.finished()) {
    const got = await recordedPop(ctx, actor, false);
    if (!got) return;
    for (const h of got) {
      const end = await workOn(ctx, actor, h, rng);
      if (actor.crashed) return;
      if (end === 'ack' && !(await ackOne(ctx, actor, h))) return;
    }
  }
}

/** bulkPop, work on the batch, then one ackMany for it. */
async function bulkPopAckMany(ctx: WorkloadContext, actor: WorkloadActor, rng: Rng): Promise<void> {
  while (!actor.crashed && !ctx.finished()) {
    const got = await recordedPop(ctx, actor, true);
    if (!got) return;
    const items: AckItem[] = [];
    for (const h of got) {
      const end = await workOn(ctx, actor, h, rng);
      if (actor.crashed) return;
      if (end === 'ack') items.push(ackItem(h));
    }
    if (items.length === 0) continue;
    const done = await recordedCall(ctx, actor, 'ackMany', items);
    if (!done) return;
    discharge(ctx, items, done.outcome, done.value);
  }
}

/** Messages whose ack may have applied are no longer outstanding. */
function discharge(ctx: WorkloadContext, items: readonly AckItem[], outcome: string, acked: readonly boolean[] | undefined): void {
  items.forEach((item, i) => {
    if (outcome === 'unknown' || (outcome === 'ok' && acked?.[i])) ctx.outstanding.delete(item.id);
  });
}

/**
 * A call that acks `items` and pops the next batch in one (ackAndPop, ackManyAndPop), recorded as its
 * parts; messages whose ack may have applied are discharged. The next batch ([] after a failure, past a
 * pause of `wait`), null when the client crashed.
 */
async function ackThenPop<T extends { readonly messages: PoppedMessage[] }>(
  ctx: WorkloadContext,
  actor: WorkloadActor,
  items: readonly AckItem[],
  call: () => Promise<Recorded<T> | null>,
  ackedOf: (reply: T) => readonly boolean[],
): Promise<Holding[] | null> {
  const invokedAt = ctx.time.now;
  const done = await call();
  if (!done) return null;
  discharge(ctx, items, done.outcome, done.value ? ackedOf(done.value) : undefined);
  if (done.outcome !== 'ok') await sleep(actor, ctx.config.workload.pollWaitMs);
  return holdings(ctx, invokedAt, done.value?.messages ?? []);
}

/** ackAndPop: the last message of a batch is acked by the call that pops the next batch. */
async function ackAndPopLoop(ctx: WorkloadContext, actor: WorkloadActor, rng: Rng): Promise<void> {
  const w = ctx.config.workload;
  let pending: Holding[] = [];
  while (!actor.crashed && !ctx.finished()) {
    if (pending.length === 0) {
      const got = await recordedPop(ctx, actor, false);
      if (!got) return;
      pending = got;
      continue;
    }
    const h = pending.shift()!;
    const end = await workOn(ctx, actor, h, rng);
    if (actor.crashed) return;
    if (end !== 'ack') continue;
    if (pending.length > 0) {
      if (!(await ackOne(ctx, actor, h))) return;
      continue;
    }
    const next = await ackThenPop(ctx, actor, [ackItem(h)], () => recordedCall(ctx, actor, 'ackAndPop', h.message.id, h.message.token, w.consumerBatch), (r) => [r.acked]);
    if (!next) return;
    pending = next;
  }
}

/** ackManyAndPop: a batch's acks and the next batch's pop in one call (the benchmarks' recommended loop). */
async function ackManyAndPopLoop(ctx: WorkloadContext, actor: WorkloadActor, rng: Rng): Promise<void> {
  const w = ctx.config.workload;
  let batch: Holding[] | null = await recordedPop(ctx, actor, false);
  while (batch && !actor.crashed && !ctx.finished()) {
    const items: AckItem[] = [];
    for (const h of batch) {
      const end = await workOn(ctx, actor, h, rng);
      if (actor.crashed) return;
      if (end === 'ack') items.push(ackItem(h));
    }
    if (items.length === 0) {
      batch = await recordedPop(ctx, actor, false);
      continue;
    }
    const next = await ackThenPop(ctx, actor, items, () => recordedCall(ctx, actor, 'ackManyAndPop', items, w.consumerBatch), (r) => r.acked);
    if (!next) return;
    batch = next.length > 0 ? next : await recordedPop(ctx, actor, false);
  }
}

/**
 * The README's loop: `for await (const m of queue.consume({ batch: 1, wait, onError }))`, entered
 * once, each step recorded as the call METHOD_HISTORY.consume names (a pop: so each lease starts at
 * its step). A store error the loop outlives ends the step so far with it (onError) and the loop's
 * next pop is a new step. Nothing restarts it: a loop that ends before the run does is a consumer
 * that stopped (keeps consuming).
 */
async function consumeLoop(ctx: WorkloadContext, actor: WorkloadActor, rng: Rng): Promise<void> {
  const w = ctx.config.workload;
  const stop = new AbortController();
  const beginStep = () => beginCall(ctx, actor, METHOD_HISTORY.consume.stepsAs, [1, { wait: w.pollWaitMs }]);
  let step = beginStep();
  let invokedAt = ctx.time.now;
  // Leases a pop of the loop kept back (their reply came a whole lease late): the step leased them to nobody.
  let keptBack: string[] = [];
  const stepReply = (messages: PoppedMessage[]) => {
    const reply = keptBack.length > 0 ? Object.assign(messages, { keptBack }) : messages;
    keptBack = [];
    return reply;
  };
  const onError = (err: unknown) => {
    step.threw(err);
    keptBack = [];
    step = beginStep();
    invokedAt = ctx.time.now;
  };
  const onLeasesKeptBack = (ids: readonly string[]) => {
    keptBack.push(...ids);
  };
  const iterator = actor.queue.consume({ batch: 1, wait: w.pollWaitMs, signal: stop.signal, onError, onLeasesKeptBack });
  for (;;) {
    let next: IteratorResult<PoppedMessage> | undefined;
    let thrown: unknown;
    try {
      next = await iterator.next();
    } catch (err) {
      thrown = err;
    }
    if (actor.crashed) return;
    if (!next || next.done) {
      if (next) step.returned(stepReply([]));
      else step.threw(thrown);
      if (!ctx.finished()) ctx.recorder.stopped(actor.name, actor.zone);
      return;
    }
    const [h] = holdings(ctx, invokedAt, [next.value]);
    step.returned(stepReply([next.value]));
    const end = await workOn(ctx, actor, h!, rng);
    if (actor.crashed) return;
    if (end === 'ack' && !(await ackOne(ctx, actor, h!))) return;
    if (ctx.finished()) {
      stop.abort();
      await iterator.return?.().catch(() => undefined);
      return;
    }
    step = beginStep();
    invokedAt = ctx.time.now;
  }
}

/** Every consumer loop, by name: the profile says which consumer runs which. */
export const CONSUMER_LOOP_DRIVERS: Readonly<Record<ConsumerLoop, (ctx: WorkloadContext, actor: WorkloadActor, rng: Rng) => Promise<void>>> = {
  'pop-ack': popAck,
  'ack-and-pop': ackAndPopLoop,
  'ack-many-and-pop': ackManyAndPopLoop,
  consume: consumeLoop,
  'bulk-pop': bulkPopAckMany,
};
