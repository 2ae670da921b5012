import { judgePriority } from '../priority-order.js';
import { property } from './judging.js';

export const priorityOrder = property({
  name: 'priorityOrder',
  label: 'priority order',
  means: 'a pop never takes a message while a more urgent one of its shard was free and due (for longer than the delivery bound)',
  exercisedWhen: 'a pop took a message while another priority of its shard was free and due',
  kinds: {
    'priority-inversion': { label: 'priority inversion', rank: 12, why: 'in the wrong order.' },
  },
  brokenBy: '**priority inversion**: a pop by the schedule took a message while a strictly more urgent one of its shard had been free and due (§2.3) for longer than B (§2.4) before the pop began and stayed free from then until it returned (a pop that began and returned in the same millisecond took only what was free at that instant)',
  judgeShard: ({ s, boundMs, found, exercised }) => {
    const priority = judgePriority(s.deliveries, (d) => s.priorityOf.get(d) ?? 0, s.free, boundMs);
    if (priority.exercised) exercised();
    for (const f of priority.findings) found('priority-inversion', f.id, f.t, [...f.processes], f.detail);
  },
});
