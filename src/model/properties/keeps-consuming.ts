import { property } from './judging.js';

export const keepsConsuming = property({
  name: 'keepsConsuming',
  label: 'keeps consuming',
  means: 'no consumer loop ends on its own while its shard has (or later has) a message free and due: a loop outlives the faults',
  exercisedWhen: "a store error reached a consumer's pop, or a consumer loop ended before the run did",
  kinds: {
    // A consumer loop that ended with work left to it: that work waits for nobody (liveness).
    'consumer-stopped': { label: 'consumer stopped', rank: 5, why: 'a consumer loop that ended with work left to it: that work waits for nobody.' },
  },
  brokenBy: "**consumer stopped** (liveness): a consumer loop ended on its own before the run did — not crashed, not stopped by the run's end, nothing restarting it — while its shard had a message free and due at or after that moment (work it left to nobody); named by the consumer and the first such message. The simulator runs the README's `consume()` loop entered once, so a `consume()` that ended at a store error is found here (a test plants one: `test/sim/keeps-consuming.test.ts`). Judged on simulated runs and real twins (the stop is their fact); a recorded history has no stops to judge",
  /**
   * Keeps consuming (liveness): a consumer loop that ended on its own is a finding when its shard had a
   * message free and due at or after the end (work it left to nobody), named by the first such message.
   */
  judgeStops: ({ stopped, shards, errorReachedConsumer, found, exercised }) => {
    if (stopped.length > 0 || errorReachedConsumer) exercised();
    for (const s of stopped) {
      const left = (shards.get(s.shard)?.free ?? []).filter((iv) => iv.to > s.at).sort((a, b) => Math.max(a.from, s.at) - Math.max(b.from, s.at) || (a.id < b.id ? -1 : 1))[0];
      if (!left) continue;
      const t = Math.max(left.from, s.at);
      found('consumer-stopped', left.id, t, [s.process], `consumer ${s.process} of shard ${s.shard} stopped at ${s.at}; ${left.id} was free and due there from ${t} to ${left.to}`);
    }
  },
});
