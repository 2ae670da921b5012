import type { WorkloadActor } from './context.js';
import type { Rng } from '../kernel/rng.js';
import { recordedCall, sleep, type WorkloadContext } from './context.js';
import { ackOne } from './hold.js';
import { drawMessage, payloadOf } from './produce.js';
import type { ProfileSettings } from '../settings/workload-profile.js';

type Operation = Exclude<keyof NonNullable<ProfileSettings['operator']>, 'intervalMs'>;

/** The read-only calls (and a manual re-queue pass): no history operation, only the trace sees them. */
const READS: readonly ((actor: WorkloadActor, id: string, pattern: string) => Promise<unknown>)[] = [
  (a, id) => a.queue.get(id),
  (a, id) => a.queue.localGet(id),
  (a) => a.queue.peek(3),
  (a) => a.queue.size(),
  (a) => a.queue.shardSizes(),
  (a) => a.queue.getAllMessages(),
  (a, _id, p) => a.queue.containsPredicate(p),
  (a, _id, p) => a.queue.getMsgWithPredicate(p, true),
  (a, id) => a.queue.getUnackTime(id),
  (a) => a.queue.findStaleMessages(),
  (a) => a.queue.processUnacks(),
  (a) => a.queue.atomicProcessUnacks(),
];

/** The payload a message was first written with: a producer's `m<i>` or an operator's ensure. */
const payloadFor = (id: string) => (/^m\d+$/.test(id) ? payloadOf(Number(id.slice(1))) : `ensured-${id}`);

/** A Lua pattern matching exactly that payload (`-` is a Lua magic character). */
const patternFor = (id: string) => `^${payloadFor(id)}$`.replace(/-/g, '%-');

/**
 * The operator: one client that, during the safety phase, reschedules, removes, ensures, pops by id
 * and by predicate (acking what it gets) and reads, on messages the producers pushed; it closes its
 * queue when the safety phase ends.
 */
export async function operatorLoop(ctx: WorkloadContext, actor: WorkloadActor, rng: Rng): Promise<void> {
  const op = ctx.profile.operator;
  if (!op) return;
  const weights: [Operation, number][] = (['reschedule', 'remove', 'ensure', 'popById', 'popByPredicate', 'read'] as const).map((k) => [k, op[k]]);
  const total = weights.reduce((n, [, w]) => n + w, 0);
  let ensured = 0;
  let reads = 0;
  while (!actor.crashed && ctx.time.now < ctx.safetyEnd && total > 0) {
    await sleep(actor, op.intervalMs);
    if (ctx.pushedIds.length === 0 || ctx.time.now >= ctx.safetyEnd) continue;
    let x = rng.float() * total;
    const kind = weights.find(([, w]) => (x -= w) < 0)?.[0] ?? 'read';
    const id = rng.pick(ctx.pushedIds);
    switch (kind) {
      case 'reschedule': {
        const delayMs = rng.int(0, 2_000);
        if (!(await recordedCall(ctx, actor, 'setTimeout', id, delayMs))) return;
        break;
      }
      case 'remove': {
        const atomic = rng.chance(0.5);
        const done = await recordedCall(ctx, actor, atomic ? 'atomicRemove' : 'remove', id);
        if (!done) return;
        if (done.outcome !== 'fail') ctx.outstanding.delete(id);
        break;
      }
      case 'ensure': {
        // Half the time an id that may already exist, else a new one.
        const target = rng.chance(0.5) ? id : `e${ensured++}`;
        const m = drawMessage(rng, ctx.profile, target, payloadFor(target));
        if (target !== id) ctx.pushedIds.push(target);
        const done = await recordedCall(ctx, actor, 'ensure', m);
        if (!done) return;
        if (done.outcome === 'ok' && done.value) ctx.outstanding.add(target);
        break;
      }
      case 'popById':
      case 'popByPredicate': {
        const byId = kind === 'popById';
        const invokedAt = ctx.time.now;
        const done = await (byId ? recordedCall(ctx, actor, 'popWithMsgId', id) : recordedCall(ctx, actor, 'popMsgWithPredicate', patternFor(id)));
        if (!done) return;
        const m = done.value;
        if (done.outcome === 'ok' && m && !(await ackOne(ctx, actor, { message: m, leaseUntil: invokedAt + ctx.config.queue.unackTimeoutMs }))) return;
        break;
      }
      case 'read': {
        // In turn, so that a run with a few reads still makes each of them.
        const read = READS[reads++ % READS.length]!;
        await read(actor, id, patternFor(id)).catch(() => undefined);
        break;
      }
    }
  }
  if (!actor.crashed) await actor.queue.close();
}
