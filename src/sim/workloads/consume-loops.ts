import type { AckItem } from '../../queue/dyno-queue.js';
import type { PoppedMessage } from '../../queue/message.js';
import type { WorkloadActor } from './context.js';
import type { CallPart } from './history-recorder.js';
import type { Rng } from '../kernel/rng.js';
import { recordedCall, sleep, type WorkloadContext } from './context.js';
import { outcomeOfError } from './history-recorder.js';
import { ackItem, ackOne, ackOutcomes, workOn, type Holding } from './hold.js';
import type { ConsumerLoop } from '../settings/workload-profile.js';

/** The history's view of a scheduled pop on this consumer's shard. */
const popPart = (actor: WorkloadActor): CallPart => ({ type: 'pop', via: 'schedule', shard: actor.zone });

/** Deliveries of a pop that returned: each leased until its invocation + the lease, on the true clock. */
function holdings(ctx: WorkloadContext, invokedAt: number, messages: readonly PoppedMessage[]): Holding[] {
  return messages.map((message) => ({ message, leaseUntil: invokedAt + ctx.config.queue.unackTimeoutMs }));
}

const delivered = (hs: readonly Holding[]) => hs.map((h) => ({ id: h.message.id, shard: h.message.shard, leaseUntil: h.leaseUntil }));

/**
 * A recorded pop (pop or bulkPop, long-polling `wait`): the messages it returned, [] when it failed
 * (after a pause of `wait`, so that a dead store is not hammered), null when the client crashed.
 */
async function recordedPop(ctx: WorkloadContext, actor: WorkloadActor, bulk: boolean): Promise<Holding[] | null> {
  const w = ctx.config.workload;
  const invokedAt = ctx.time.now;
  let got: Holding[] = [];
  const done = await recordedCall(
    ctx,
    actor,
    popPart(actor),
    () => (bulk ? actor.queue.bulkPop(w.consumerBatch, { wait: w.pollWaitMs }) : actor.queue.pop(w.consumerBatch, { wait: w.pollWaitMs })),
    (messages) => {
      got = holdings(ctx, invokedAt, messages);
      return { outcome: 'ok', result: { delivered: delivered(got) } };
    },
  );
  if (!done) return null;
  if (done.outcome !== 'ok') await sleep(actor, w.pollWaitMs);
  return got;
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
    const done = await recordedCall(ctx, actor, { type: 'ack', ids: items.map((i) => i.id) }, () => actor.queue.ackMany(items), (acked) => ({
      outcome: 'ok',
      result: { outcomes: ackOutcomes(items, acked) },
    }));
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
  call: () => Promise<T>,
  ackedOf: (reply: T) => readonly boolean[],
): Promise<Holding[] | null> {
  const invokedAt = ctx.time.now;
  let next: Holding[] = [];
  const done = await recordedCall(ctx, actor, [{ type: 'ack', ids: items.map((i) => i.id) }, popPart(actor)], call, (r) => {
    next = holdings(ctx, invokedAt, r.messages);
    return { outcome: 'ok', result: { outcomes: ackOutcomes(items, ackedOf(r)), delivered: delivered(next) } };
  });
  if (!done) return null;
  discharge(ctx, items, done.outcome, done.value ? ackedOf(done.value) : undefined);
  if (done.outcome !== 'ok') await sleep(actor, ctx.config.workload.pollWaitMs);
  return next;
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
    const next = await ackThenPop(ctx, actor, [ackItem(h)], () => actor.queue.ackAndPop(h.message.id, h.message.token, w.consumerBatch), (r) => [r.acked]);
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
    const next = await ackThenPop(ctx, actor, items, () => actor.queue.ackManyAndPop(items, w.consumerBatch), (r) => r.acked);
    if (!next) return;
    batch = next.length > 0 ? next : await recordedPop(ctx, actor, false);
  }
}

/**
 * The README's loop: `for await (const m of queue.consume({ batch: 1, wait, onError }))`, entered
 * once, each step recorded as a pop (so each lease starts at its step). A store error the loop
 * outlives ends the step so far with it (onError) and the loop's next pop is a new step. Nothing
 * restarts it: a loop that ends before the run does is a consumer that stopped (keeps consuming).
 */
async function consumeLoop(ctx: WorkloadContext, actor: WorkloadActor, rng: Rng): Promise<void> {
  const w = ctx.config.workload;
  const stop = new AbortController();
  let step = ctx.recorder.begin(actor.name, popPart(actor), actor.probe);
  let invokedAt = ctx.time.now;
  const onError = (err: unknown) => {
    ctx.recorder.end(step, outcomeOfError(err, actor.probe));
    step = ctx.recorder.begin(actor.name, popPart(actor), actor.probe);
    invokedAt = ctx.time.now;
  };
  const iterator = actor.queue.consume({ batch: 1, wait: w.pollWaitMs, signal: stop.signal, onError });
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
      ctx.recorder.end(step, next ? 'ok' : outcomeOfError(thrown, actor.probe), { delivered: [] });
      if (!ctx.finished()) ctx.recorder.stopped(actor.name, actor.zone);
      return;
    }
    const [h] = holdings(ctx, invokedAt, [next.value]);
    ctx.recorder.end(step, 'ok', { delivered: delivered([h!]) });
    const end = await workOn(ctx, actor, h!, rng);
    if (actor.crashed) return;
    if (end === 'ack' && !(await ackOne(ctx, actor, h!))) return;
    if (ctx.finished()) {
      stop.abort();
      await iterator.return?.().catch(() => undefined);
      return;
    }
    step = ctx.recorder.begin(actor.name, popPart(actor), actor.probe);
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
