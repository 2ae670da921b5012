import { decidingOps, delays, earliestDue, visibilityOps } from '../due-time.js';
import { property } from './judging.js';

export const onTime = property({
  name: 'onTime',
  label: 'on time',
  means: 'never delivered by the schedule before its due time (push, reschedule or release)',
  exercisedWhen: 'a message with a delay or a reschedule was delivered by the schedule',
  kinds: {
    early: { label: 'early', rank: 11, why: 'too soon: a delay is part of what the producer asked for.' },
  },
  brokenBy: '**early**: delivered by the schedule, its pop returning before its due time (§2.2; deliveries by id or predicate are never early)',
  /**
   * Early deliveries and latency (docs/CHECKER.md §2.2). A delivery by the schedule is early when its pop returned
   * before the earliest due time any deciding push, ensure, reschedule or release allows.
   */
  judgeMessage: ({ m, found, exercised, latency }) => {
    const visible = visibilityOps(m);
    let lastDecider: unknown = null;
    for (const d of m.deliveries) {
      if ((d.via ?? 'schedule') !== 'schedule') continue;
      // No operation invoked before the pop returned could have made the message visible: only the
      // later ones may explain it, and each is due no earlier than its invocation, so the delivery came
      // before every due time the history allows (early unless one is due at that very instant). Found by
      // the brute-force oracle: push m at 0 (+150 ms), a pop invoked at -1 returning m at 0 was let pass.
      const before = decidingOps(m, visible, d.invokedAt, d.completedAt);
      const deciding = before.length > 0 ? before : visible;
      if (deciding.length === 0) continue;
      let due = Infinity;
      for (const v of deciding) due = Math.min(due, earliestDue(v));
      if (deciding.some(delays)) exercised();
      if (d.completedAt < due) found('early', d.completedAt, [d.process], `delivered at ${d.completedAt}, due at ${due}`);
      // Latency of the first delivery after the operation that set the due time.
      let decider = deciding[0]!;
      for (const v of deciding) if (v.invokedAt > decider.invokedAt) decider = v;
      if (decider !== lastDecider) latency(d.completedAt - due);
      lastDecider = decider;
    }
  },
});
