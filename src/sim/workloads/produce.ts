import type { MessageInput } from '../../queue/message.js';
import type { WorkloadActor } from './context.js';
import type { Rng } from '../kernel/rng.js';
import { recordedCall, sleep, type WorkloadContext } from './context.js';
import type { ProfileSettings } from '../settings/workload-profile.js';

/** One message's delay and priority, drawn from the profile. */
export function drawMessage(rng: Rng, p: ProfileSettings, id: string, payload: string): MessageInput {
  const delayed = p.maxDelayMs > 0 && (p.delayedFraction >= 1 || rng.chance(p.delayedFraction));
  const delayMs = delayed ? rng.int(0, p.maxDelayMs) : 0;
  const priority = p.maxPriority > 0 ? rng.int(0, p.maxPriority) : 0;
  return { id, payload, timeout: delayMs, priority };
}

/** The payload of message i: what a predicate pop matches. */
export const payloadOf = (i: number): string => `payload-${i}`;

/**
 * A producer: message i goes to producer i mod P, in batches of `batch`, at `rate` messages per
 * second, during the safety phase. A push that returned ok makes its messages outstanding.
 */
export async function producerLoop(ctx: WorkloadContext, actor: WorkloadActor, index: number, rng: Rng): Promise<void> {
  const w = ctx.config.workload;
  const interval = (1_000 / w.rate) * w.batch;
  const mine: number[] = [];
  for (let i = index; i < w.messages; i += w.producers) mine.push(i);
  for (let start = 0; start < mine.length && !actor.crashed; start += w.batch) {
    await sleep(actor, interval);
    if (ctx.time.now >= ctx.safetyEnd) break;
    const batch = mine.slice(start, start + w.batch).map((i) => drawMessage(rng, ctx.profile, `m${i}`, payloadOf(i)));
    for (const m of batch) ctx.pushedIds.push(m.id);
    const done = await recordedCall(ctx, actor, 'push', batch);
    if (!done) return;
    if (done.outcome === 'ok') for (const m of batch) ctx.outstanding.add(m.id);
  }
}
