import { judgeLate } from '../late.js';
import { mayHaveApplied } from '../message-ops.js';
import { lifeStart, owedOf, shardOwed } from '../owed.js';
import { property } from './judging.js';

export const unackRecovery = property({
  name: 'unackRecovery',
  label: 'un-ack recovery',
  means: 'an unacknowledged delivery is re-delivered within the stated bound',
  exercisedWhen: 'a hold ended without an ack (lease ran out, release, refused ack) early enough to be judged',
  kinds: {
    'slow-recovery': { label: 'slow recovery', rank: 10, why: 'the work is done, but only late after a holder failed.' },
  },
  brokenBy: "**slow recovery**: a hold that ended without an ok/unknown ack (lease ran out, ack refused, released) owes a re-delivery from the point the recovery bound sets (§2.5). With pops in the history and a delivery bound, it is slow when a pop by the schedule of its shard waited longer than B while it was owed (until taken again, acked, removed or created anew; not while an unknown pop that could reach it may have leased it to nobody — from its invocation until such a lease, as long as the hold's, ran out and the allowance passed again) — a message left waiting behind more urgent work while every consumer of its shard was busy is not; without them, when it was not re-delivered by that point + B",
  /**
   * Un-ack recovery: a hold that ended without an ok/unknown ack (its lease ran out, its ack was refused,
   * or it was released) must be followed by another delivery (or an ack or remove of it). Judged where
   * its deadline — max(end of the hold, start of liveness) + reaper period + bound + delivery bound —
   * lies in the run. With pops in the history and a delivery bound (on demand), the judgement is the
   * shards' (judgeShard): the queue owes the re-delivery to a consumer that asks for it, so a
   * message left waiting behind more urgent work while every consumer of its shard was busy is not a
   * slow recovery; only a pop of its shard that waited longer than B while it was owed is. Without them,
   * the deadline alone decides (a history that does not say when consumers asked).
   */
  judgeMessage: ({ m, holds, phases, settings, popsRecorded, found, exercised }) => {
    const onDemand = settings.deliveryBoundMs !== undefined && popsRecorded;
    for (const o of owedOf(m, holds, phases, settings)) {
      exercised();
      if (onDemand && shardOwed(m, o) !== undefined) continue;
      // Processed (or removed) since the push this delivery came from, by the deadline: nothing owed.
      const since = lifeStart(m, o.h.d);
      const inWindow = (t: number) => t >= since && t <= o.deadline;
      if (holds.slice(o.index + 1).some((n) => n.d.completedAt <= o.deadline)) continue;
      if (m.acks.some((a) => mayHaveApplied(a) && inWindow(a.completedAt))) continue;
      if (m.removes.some((r) => mayHaveApplied(r) && inWindow(r.completedAt))) continue;
      found('slow-recovery', o.deadline, [o.h.d.process], `delivery to ${o.h.d.process} (${o.ended}); not re-delivered by ${o.deadline}`);
    }
  },
  /** Un-ack recovery on demand: a pop of the shard that waited longer than B while a re-delivery was owed. */
  judgeShard: ({ shard, s, waiting, boundMs, found }) => {
    for (const f of judgeLate(waiting, s.owed.map((o) => o.iv), boundMs).findings) {
      const mine = s.owed.filter((x) => x.iv.id === f.id);
      const o = [...mine].reverse().find((x) => x.iv.from < f.t) ?? mine[0]!;
      found(
        'slow-recovery',
        f.id,
        f.t,
        [o.holder, ...f.processes],
        `delivery to ${o.holder} (${o.ended}); owed again from ${o.iv.from}, while ${f.pops} pop(s) of shard ${shard} waited past the ${boundMs} ms bound without it (up to ${f.beyondMs.toFixed(0)} ms beyond it)`,
      );
    }
  },
});
