import { describe, expect, it } from 'vitest';
import { parseSimConfig } from '../../src/sim/run/config.js';
import { CONFIGURATIONS, configurationRun } from '../../src/sim/run/configurations.js';
import { HistoryRecorder, RECLASSIFIED } from '../../src/sim/workloads/history-recorder.js';
import { runSimulation } from '../../src/sim/run/run.js';
import { CallProbe } from '../../src/sim/store/sim-store.js';
import type { DynomiteTopology } from '../../src/sim/topology/dynomite.js';
import { parseTrace } from '../../src/sim/run/trace-file.js';
import { world, type World } from './fixtures.js';

/**
 * docs/CHECKER.md §1.2: a call is a `fail` only when its refusal guarantees no effect. Under DC_QUORUM the vote
 * can answer 0 to a write that a minority replica applied (replicas diverged): that call is `unknown`,
 * whether the replica ran it before the reply or after it.
 */
function divergedAck(options: { minorityHasIt: boolean; stallMinorityMs?: number }) {
  const w = world('dynomite');
  const c = w.topology.nodes.find((n) => n.zone === 'c')!;
  // Only rack c still holds the lease: a and b answer ZREM with 0 and outvote c's 1.
  if (options.minorityHasIt) c.keyspace.exec('zadd', ['unack', '1', 'm1']);
  if (options.stallMinorityMs) (w.topology as DynomiteTopology).pause(c, 'redis', w.kernel.now + options.stallMinorityMs);
  const recorder = new HistoryRecorder(w.kernel, w.trace);
  const probe = new CallProbe();
  const store = w.client('consumer', 'a', { consistency: 'DC_QUORUM', probe, timeoutMs: 60_000 });
  return { w, c, recorder, probe, store };
}

async function ack(w: World, recorder: HistoryRecorder, probe: CallProbe, store: ReturnType<World['client']>) {
  const call = recorder.begin('consumer', [{ type: 'ack', ids: ['m1'] }], probe);
  const removed = await w.settle(store.zrem('unack', ['m1']));
  return { removed, recorded: recorder.end(call, removed > 0 ? 'ok' : 'fail') };
}

describe('a refused write that a replica applied is unknown, not fail', () => {
  it('applied on a minority replica before the reply: recorded unknown', async () => {
    const { w, c, recorder, probe, store } = divergedAck({ minorityHasIt: true });
    const { removed, recorded } = await ack(w, recorder, probe, store);
    expect(removed).toBe(0);
    expect(c.keyspace.exec('zscore', ['unack', 'm1'])).toBeNull();
    expect(recorded).toBe('unknown');
    expect(recorder.history.map((o) => o.outcome)).toEqual(['unknown']);
  });

  it('applied on a minority replica only after the reply: the recorded fail is amended to unknown', async () => {
    const { w, c, recorder, probe, store } = divergedAck({ minorityHasIt: true, stallMinorityMs: 2_000 });
    const amended: string[] = [];
    recorder.onReclassified = (ops) => amended.push(...ops.map((o) => o.id));
    const { removed, recorded } = await ack(w, recorder, probe, store);
    expect(removed).toBe(0);
    expect(recorded).toBe('fail');
    expect(c.keyspace.exec('zscore', ['unack', 'm1'])).toBe('1');
    await w.advance(3_000);
    expect(c.keyspace.exec('zscore', ['unack', 'm1'])).toBeNull();
    expect(recorder.history.map((o) => o.outcome)).toEqual(['unknown']);
    expect(amended).toEqual(['m1']);
  });

  it('once the run is sealed, a late application no longer changes the history', async () => {
    const { w, recorder, probe, store } = divergedAck({ minorityHasIt: true, stallMinorityMs: 2_000 });
    await ack(w, recorder, probe, store);
    recorder.seal();
    await w.advance(3_000);
    expect(recorder.history.map((o) => o.outcome)).toEqual(['fail']);
  });

  it('a refusal no replica applied stays a fail', async () => {
    const { w, recorder, probe, store } = divergedAck({ minorityHasIt: false, stallMinorityMs: 2_000 });
    const { recorded } = await ack(w, recorder, probe, store);
    await w.advance(3_000);
    expect(recorded).toBe('fail');
    expect(recorder.history.map((o) => o.outcome)).toEqual(['fail']);
  });
});

describe('in a run: acks the vote refused but a replica applied', () => {
  it('are amended to unknown in the history and in the trace read back, and discharge their message', async () => {
    // A guarantees-table run (seed g15) in which Dynomite backend crashes leave replicas diverged. (Node
    // crashes did until one request's copies left together and the shipped client stopped failing over;
    // g7 did until a restarted redis was served only from Dynomite's next reconnect try.)
    const named = CONFIGURATIONS.find((c) => c.name === 'dynomite/DC_QUORUM/atomic/backend-crash')!;
    const r = await runSimulation(parseSimConfig({ ...configurationRun(named, 'g15'), keepTrace: true }));
    const amended = r.traceText!.split('\n').filter((l) => l.includes(`"op":"${RECLASSIFIED}"`));
    expect(amended.length).toBeGreaterThan(0);
    expect(parseTrace(r.traceText!).history).toEqual(r.history);
    const unknownAcks = new Set(r.history.filter((o) => o.type === 'ack' && o.outcome === 'unknown').map((o) => o.id));
    const ids = amended.flatMap((l) => (JSON.parse(l) as { args: { ids: string[] } }).args.ids);
    for (const id of ids) expect(unknownAcks.has(id)).toBe(true);
    // An unknown ack may have removed its message: it is neither lost nor slowly recovered.
    const blamed = r.report.violations.filter((v) => ['slow-recovery', 'lost-after-delivery'].includes(v.kind)).map((v) => v.id);
    expect(blamed.filter((id) => ids.includes(id))).toEqual([]);
  });
});
