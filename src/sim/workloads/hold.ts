import type { AckItem } from '../../queue/dyno-queue.js';
import type { PoppedMessage } from '../../queue/message.js';
import type { WorkloadActor } from './context.js';
import type { Rng } from '../kernel/rng.js';
import { recordedCall, sleep, type WorkloadContext } from './context.js';

/** What became of a held message: to be acked (by whichever call the loop uses), or done with. */
export type HoldEnd = 'ack' | 'released' | 'gone';

/** What a consumer knows of a message it holds: the item to ack it with, and its lease on the true clock. */
export interface Holding {
  readonly message: PoppedMessage;
  readonly leaseUntil: number;
}

export const ackItem = (h: Holding): AckItem => ({ id: h.message.id, token: h.message.token });

/**
 * A consumer works on one held message as the profile says: slow work with a lease extension, a
 * release instead of an ack, a reschedule attempt on the held message (refused: it is not queued),
 * a crash before the ack, a late ack. Returns how the hold ends; 'gone' also when the client crashed.
 */
export async function workOn(ctx: WorkloadContext, actor: WorkloadActor, h: Holding, rng: Rng): Promise<HoldEnd> {
  const w = ctx.config.workload;
  const p = ctx.profile.holding;
  const lease = ctx.config.queue.unackTimeoutMs;
  const { id, token } = h.message;
  await sleep(actor, rng.exponential(w.processingMeanMs));
  if (p.extend > 0 && rng.chance(p.extend)) {
    // Slow work: the lease is extended to twice its length, then the work outlasts the original lease.
    const done = await recordedCall(ctx, actor, 'setUnackTimeout', id, 2 * lease, token);
    if (!done) return 'gone';
    await sleep(actor, 1.2 * lease);
  }
  if (p.reschedule > 0 && rng.chance(p.reschedule)) {
    const delayMs = rng.int(0, 1_000);
    const done = await recordedCall(ctx, actor, 'setTimeout', id, delayMs);
    if (!done) return 'gone';
  }
  if (p.release > 0 && rng.chance(p.release)) {
    const done = await recordedCall(ctx, actor, 'release', id, token);
    return done ? 'released' : 'gone';
  }
  if (rng.chance(w.crashBeforeAckProbability) && ctx.time.now < ctx.safetyEnd) {
    ctx.trace.record({ t: ctx.time.now, actor: actor.name, op: 'crash-before-ack', args: id });
    actor.crash();
    return 'gone';
  }
  if (rng.chance(w.lateAckProbability)) await sleep(actor, w.lateAckMs);
  return 'ack';
}

/** Acks one message with `ack`; an ack that may have applied discharges it. */
export async function ackOne(ctx: WorkloadContext, actor: WorkloadActor, h: Holding): Promise<boolean> {
  const done = await recordedCall(ctx, actor, 'ack', h.message.id, h.message.token);
  if (!done) return false;
  if (done.outcome !== 'fail') ctx.outstanding.delete(h.message.id);
  return true;
}
