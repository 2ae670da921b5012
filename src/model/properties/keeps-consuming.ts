import { property } from './judging.js';

export const keepsConsuming = property({
  name: 'keepsConsuming',
  label: 'keeps consuming',
  means: 'no consumer loop ends on its own while its shard has (or later has) a message free and due, and once the faults have healed every message free and due is delivered within the recovery bound: consumers outlive the faults',
  exercisedWhen: "a store error reached a consumer's pop, a consumer loop ended before the run did, or a message was free and due after the faults healed",
  kinds: {
    // A consumer loop that ended with work left to it: that work waits for nobody (liveness).
    'consumer-stopped': { label: 'consumer stopped', rank: 5, why: 'a consumer loop that ended with work left to it: that work waits for nobody.' },
    // After the heal nobody took due work in time: consumers did not come back (liveness).
    'not-resumed': { label: 'not consumed after the heal', rank: 5.5, why: 'after the faults healed, work stayed free and due past the recovery allowance with nobody asking for a whole recovery bound: the consumers did not come back.' },
  },
  brokenBy:
    "**consumer stopped** (liveness): a consumer loop ended on its own before the run did — not crashed, not stopped by the run's end, nothing restarting it — while its shard had a message free and due at or after that moment (work it left to nobody); named by the consumer and the first such message. The simulator runs the README's `consume()` loop entered once, so a `consume()` that ended at a store error is found here (a test plants one: `test/sim/keeps-consuming.test.ts`). Judged on simulated runs and real twins (the stop is their fact); a recorded history has no stops to judge. **not consumed after the heal** (liveness): a message stayed free and due (§2.3) for longer than the recovery bound after the liveness phase's start + twice the recovery bound (§2.7) — a store error had reached a consumer of its shard, the faults had healed, and no consumer of the shard asked in that recovery bound (no pop by the schedule waited in it: one that asked and missed the message is late or a loss, not this; consumers busy with other work ask again within it); named by the message, with the consumers of its shard that stopped. Judged, like the stops, on simulated runs and real twins only (histories that follow their consumer loops)",
  /**
   * Keeps consuming (liveness): a consumer loop that ended on its own is a finding when its shard had a
   * message free and due at or after the end (work it left to nobody), named by the first such message;
   * and a message free and due for longer than the recovery bound past the liveness phase's start + twice
   * the recovery bound, while no consumer of its shard asked in that bound, is one
   * where a store error had reached the shard's consumers (docs/CHECKER.md §2.7), whoever was or was not consuming.
   */
  judgeStops: ({ stopped, shards, errorReachedConsumer, livenessStart, recoveryBoundMs, boundMs, loopsFollowed, asking, erred, found, exercised }) => {
    if (stopped.length > 0 || errorReachedConsumer) exercised();
    for (const s of stopped) {
      const left = (shards.get(s.shard)?.free ?? []).filter((iv) => iv.to > s.at).sort((a, b) => Math.max(a.from, s.at) - Math.max(b.from, s.at) || (a.id < b.id ? -1 : 1))[0];
      if (!left) continue;
      const t = Math.max(left.from, s.at);
      found('consumer-stopped', left.id, t, [s.process], `consumer ${s.process} of shard ${s.shard} stopped at ${s.at}; ${left.id} was free and due there from ${t} to ${left.to}`);
    }
    // One recovery bound for a call in flight at the heal to fail (the request timeout), one for the back-off after it.
    if (!loopsFollowed) return;
    const resumedBy = livenessStart + 2 * recoveryBoundMs;
    for (const [shard, s] of shards) {
      // Only where a fault reached the shard's consumers: what they must come back from.
      if (!erred.has(shard)) continue;
      for (const iv of s.free) {
        if (iv.to <= livenessStart) continue;
        exercised();
        const from = Math.max(iv.from, resumedBy);
        // Free for less than a recovery bound past the deadline: consumers busy with other work may
        // not have asked yet, and that is not failing to come back.
        if (iv.to - from <= Math.max(boundMs, recoveryBoundMs)) continue;
        // A consumer of the shard asked within that recovery bound: it came back, and the message was
        // late or gone from the store (delivered promptly, at-least-once), not left to nobody.
        const until = from + Math.max(boundMs, recoveryBoundMs);
        if ((asking.get(shard) ?? []).some((p) => p.invokedAt <= until && (p.completedAt ?? Infinity) >= from)) continue;
        const gone = stopped.filter((x) => x.shard === shard && x.at <= iv.to).map((x) => x.process);
        found(
          'not-resumed',
          iv.id,
          until,
          gone,
          `free and due on shard ${shard} from ${iv.from} to ${iv.to}: past the heal (${livenessStart}) + twice the ${recoveryBoundMs} ms recovery bound, no consumer of the shard asked for another ${recoveryBoundMs} ms${gone.length > 0 ? `; stopped: ${gone.join(', ')}` : ''}`,
        );
      }
    }
  },
});
