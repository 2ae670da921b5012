import { describe, expect, it } from 'vitest';
import { parseSimConfig } from '../../src/sim/run/config.js';
import { CONFIGURATIONS, configurationRun } from '../../src/sim/run/configurations.js';
import { HistoryRecorder } from '../../src/sim/workloads/history-recorder.js';
import { runSimulation } from '../../src/sim/run/run.js';
import { CallProbe } from '../../src/sim/store/sim-store.js';
import type { DynomiteTopology } from '../../src/sim/topology/dynomite.js';
import { parseTrace } from '../../src/sim/run/trace-file.js';
import { world, type World } from './fixtures.js';

/**
 * docs/CHECKER.md §1.2: a call is a `fail` only when its refusal guarantees no effect. Under DC_QUORUM the vote
 * can answer 0 to a write that a minority replica applied (replicas diverged), and the client cannot tell
 * that from a refusal no replica ran: on Dynomite every refusal it was answered is `unknown`, as the real
 * twin scores it, whether a replica ran the write before the reply, after it, or never.
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

describe('a write the Dynomite vote refused is unknown, not fail', () => {
  it('applied on a minority replica before the reply: recorded unknown', async () => {
    const { w, c, recorder, probe, store } = divergedAck({ minorityHasIt: true });
    const { removed, recorded } = await ack(w, recorder, probe, store);
    expect(removed).toBe(0);
    expect(c.keyspace.exec('zscore', ['unack', 'm1'])).toBeNull();
    expect(recorded).toBe('unknown');
    expect(recorder.history.map((o) => o.outcome)).toEqual(['unknown']);
  });

  it('applied on a minority replica only after the reply: recorded unknown at once (the client could not tell)', async () => {
    const { w, c, recorder, probe, store } = divergedAck({ minorityHasIt: true, stallMinorityMs: 2_000 });
    const { removed, recorded } = await ack(w, recorder, probe, store);
    expect(removed).toBe(0);
    expect(recorded).toBe('unknown');
    expect(c.keyspace.exec('zscore', ['unack', 'm1'])).toBe('1');
    await w.advance(3_000);
    expect(c.keyspace.exec('zscore', ['unack', 'm1'])).toBeNull();
    expect(recorder.history.map((o) => o.outcome)).toEqual(['unknown']);
  });

  it('refused by a vote that no replica applied: recorded unknown, as the real twin scores it (was: fail, the simulator knowing what the client cannot)', async () => {
    const { w, c, recorder, probe, store } = divergedAck({ minorityHasIt: false, stallMinorityMs: 2_000 });
    const { removed, recorded } = await ack(w, recorder, probe, store);
    await w.advance(3_000);
    expect(removed).toBe(0);
    expect(w.topology.nodes.every((n) => n.keyspace.exec('zscore', ['unack', 'm1']) === null)).toBe(true);
    expect(c.keyspace.exec('zcard', ['unack'])).toBe(0);
    expect(recorded).toBe('unknown');
    expect(recorder.history.map((o) => o.outcome)).toEqual(['unknown']);
  });

  it('on a primary with replicas, whose reply is the primary\'s own, a refused ack stays a fail', async () => {
    const w = world('primary-replica');
    const recorder = new HistoryRecorder(w.kernel, w.trace);
    const probe = new CallProbe();
    const store = w.client('consumer', 'a', { probe, timeoutMs: 60_000 });
    const { removed, recorded } = await ack(w, recorder, probe, store);
    expect(removed).toBe(0);
    expect(recorded).toBe('fail');
    expect(recorder.history.map((o) => o.outcome)).toEqual(['fail']);
  });
});

describe('a recorded fail a replica applied afterwards (the recorder\'s amendment)', () => {
  const refused = (w: World) => {
    const recorder = new HistoryRecorder(w.kernel, w.trace);
    const probe = new CallProbe();
    const call = recorder.begin('consumer', [{ type: 'ack', ids: ['m1'] }], probe);
    const effects = probe.effects!;
    return { recorder, recorded: recorder.end(call, 'fail'), effects };
  };

  it('is amended to unknown', () => {
    const w = world('primary-replica');
    const { recorder, recorded, effects } = refused(w);
    const amended: string[] = [];
    recorder.onReclassified = (ops) => amended.push(...ops.map((o) => o.id));
    expect(recorded).toBe('fail');
    effects.note();
    expect(recorder.history.map((o) => o.outcome)).toEqual(['unknown']);
    expect(amended).toEqual(['m1']);
  });

  it('once the run is sealed, a late application no longer changes the history', () => {
    const w = world('primary-replica');
    const { recorder, effects } = refused(w);
    recorder.seal();
    effects.note();
    expect(recorder.history.map((o) => o.outcome)).toEqual(['fail']);
  });
});

describe('in a run: acks the vote refused', () => {
  it('are unknown in the history and in the trace read back, and discharge their message', async () => {
    // A guarantees-table run (seed g15) in which Dynomite backend crashes leave replicas diverged.
    const named = CONFIGURATIONS.find((c) => c.name === 'dynomite/DC_QUORUM/atomic/backend-crash')!;
    const r = await runSimulation(parseSimConfig({ ...configurationRun(named, 'g15'), keepTrace: true }));
    expect(parseTrace(r.traceText!).history).toEqual(r.history);
    const acks = r.history.filter((o) => o.type === 'ack');
    expect(acks.filter((o) => o.outcome === 'fail')).toEqual([]);
    const ids = acks.filter((o) => o.outcome === 'unknown').map((o) => o.id);
    expect(ids.length).toBeGreaterThan(0);
    // An unknown ack may have removed its message: it is neither lost nor slowly recovered.
    const blamed = r.report.violations.filter((v) => ['slow-recovery', 'lost-after-delivery'].includes(v.kind)).map((v) => v.id);
    expect(blamed.filter((id) => ids.includes(id))).toEqual([]);
  });
});
