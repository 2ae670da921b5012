import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createQueue } from '../src/queue/create-queue.js';
import type { QueueMode } from '../src/queue/dyno-queue.js';
import type { Store } from '../src/store/store.js';
import { world } from '../test/sim/fixtures.js';
import { FakeTime } from '../test/support/fake-time.js';

const SCALE = Number(process.env.DYNOQ_PROPERTY_SCALE ?? 1);
const LEASE = 100;

/**
 * Every store call is released in an order fast-check's scheduler picks; `released` sees each call as
 * it is released (calls reach the one node in release order).
 */
function scheduled(store: Store, s: fc.Scheduler, released: (prop: string | symbol, args: unknown[]) => void = () => undefined): Store {
  return new Proxy(store, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver);
      if (typeof value !== 'function') return value;
      return s.scheduleFunction((...args: unknown[]) => {
        released(prop, args);
        return (value as (...a: unknown[]) => Promise<unknown>).apply(target, args);
      });
    },
  });
}

interface Outcome {
  readonly acks: Map<string, number>;
  readonly lastToken: Map<string, string>;
  readonly ackedTokens: Map<string, string[]>;
}

async function race(mode: QueueMode, s: fc.Scheduler, plan: { extend: boolean; removeId: number | null; advanceAt: number }): Promise<Outcome & { leftover: number; messages: string[] }> {
  const w = world('dynomite', ['a'], 0);
  const time = new FakeTime();
  const direct = w.client('setup', 'a');
  const run = <T>(p: Promise<T>) => w.settle(p);
  const make = (store: Store) => createQueue({ name: 'race', mode, quorum: store, clock: time, timers: time, unackInterval: 0, unackTimeout: LEASE });
  const setup = make(direct);
  const messages = ['m0', 'm1', 'm2', 'm3'];
  await run(setup.push(messages.map((id) => ({ id, payload: id }))));
  // Lease tokens come from the client, drawn when pop is called; the pop that leased last is the one
  // released last, so each pop's token is ranked by its release.
  const popRank = new Map<string, number>();
  const onRelease = (prop: string | symbol, args: unknown[]) => {
    const [script, , argv] = args as [{ name: string }, unknown, string[]];
    if (prop === 'runScript' && script.name === 'atomicPop') popRank.set(argv[4]!, popRank.size + 1);
  };
  const racers = [make(scheduled(w.client('c1', 'a'), s, onRelease)), make(scheduled(w.client('c2', 'a'), s, onRelease))];
  const reaper = make(scheduled(w.client('r', 'a'), s));
  const acks = new Map<string, number>();
  const lastToken = new Map<string, string>();
  const ackedTokens = new Map<string, string[]>();
  const consumer = async (q: (typeof racers)[number]) => {
    for (let round = 0; round < 2; round++) {
      const got = await q.pop(2);
      // Replies may arrive out of order: the latest lease is the one whose pop was released last.
      const rank = (t: string | undefined) => (t === undefined ? 0 : popRank.get(t)!);
      for (const m of got) if (m.token && rank(m.token) > rank(lastToken.get(m.id))) lastToken.set(m.id, m.token);
      for (const m of got) {
        if (plan.extend) await q.setUnackTimeout(m.id, LEASE, m.token);
        if (await q.ack(m.id, m.token)) {
          acks.set(m.id, (acks.get(m.id) ?? 0) + 1);
          if (m.token) ackedTokens.set(m.id, [...(ackedTokens.get(m.id) ?? []), m.token]);
        }
      }
    }
  };
  const tasks = [
    consumer(racers[0]!),
    consumer(racers[1]!),
    (async () => {
      for (let i = 0; i < 3; i++) await reaper.processUnacks();
    })(),
    plan.removeId === null ? Promise.resolve(false) : reaper.remove(messages[plan.removeId]!),
  ];
  // Let virtual time and the scheduler take turns until every racer is done.
  let done = false;
  const all = Promise.all(tasks).finally(() => (done = true));
  let steps = 0;
  while (!done && steps < 10_000) {
    if (steps === plan.advanceAt) await time.advance(LEASE + 1);
    await w.advance(5);
    if (s.count() > 0) await s.waitOne();
    steps++;
  }
  await all;
  // Drain sequentially: expire everything, re-queue, pop and ack what is left.
  await time.advance(10 * LEASE);
  await run(setup.processUnacks());
  const rest = await run(setup.pop(10));
  for (const m of rest) if (await run(setup.ack(m.id, m.token))) acks.set(m.id, (acks.get(m.id) ?? 0) + 1);
  const leftover = (await run(setup.size())) + (await run(setup.shardSizes())).a!.uacked;
  return { acks, lastToken, ackedTokens, leftover, messages: plan.removeId === null ? messages : messages.filter((_, i) => i !== plan.removeId) };
}

const planArb = fc.record({ extend: fc.boolean(), removeId: fc.option(fc.integer({ min: 0, max: 3 }), { nil: null }), advanceAt: fc.integer({ min: 0, max: 30 }) });

describe('interleavings: pops, acks, extends, removes and the reaper raced by fast-check', () => {
  it('atomic: every message is acked exactly once, only ever with its latest lease token', async () => {
    await fc.assert(
      fc.asyncProperty(fc.scheduler(), planArb, async (s, plan) => {
        const r = await race('atomic', s, plan);
        for (const id of r.messages) expect(r.acks.get(id) ?? 0, `acks of ${id}`).toBe(1);
        for (const [id, tokens] of r.ackedTokens) expect(tokens).toEqual([r.lastToken.get(id)]);
        expect(r.leftover).toBe(0);
      }),
      { numRuns: Math.round(100 * SCALE) },
    );
  });

  // The legacy mode promises neither exactly-once acks nor no loss under these races: the two tests
  // below replay what the harness found, so that a change in either behaviour is noticed.
  it('legacy: the harness finds a message lost to the non-atomic reaper racing a claim (fixed seed)', async () => {
    // Dyno's processUnacks reads expired entries, then re-queues them one call at a time; a consumer
    // claiming the same id in between ends with the id in neither set and its payload orphaned.
    const error = await legacyFinding({ seed: 42, numRuns: 200 }, (r, id) => expect(r.acks.get(id) ?? 0, `acks of ${id}`).toBe(1));
    console.info(`legacy interleaving finding (seed 42): ${error}`);
  });

  it('legacy: the harness finds a message acked twice — a late ack racing a re-claim (fixed seed and path)', async () => {
    // Legacy ack is ZREM from un-ack, then HDEL: once the reaper has re-queued an expired lease, another
    // consumer can claim the id and read its payload between the two, and then ack it a second time.
    const error = await legacyFinding({ seed: -1178552215, path: '1405' }, (r, id) =>
      expect(r.acks.get(id) ?? 0, `acks of ${id}`).toBeLessThanOrEqual(1),
    );
    expect(error).toMatch(/acks of m\d: expected 2 to be less than or equal to 1/);
  });
});

/** Replays a legacy race that fast-check found; fails unless the property fails there again. */
async function legacyFinding(
  params: { seed: number; numRuns?: number; path?: string },
  check: (r: Awaited<ReturnType<typeof race>>, id: string) => void,
): Promise<string> {
  const result = await fc.check(
    fc.asyncProperty(fc.scheduler(), planArb, async (s, plan) => {
      const r = await race('legacy', s, plan);
      for (const id of r.messages) check(r, id);
    }),
    params,
  );
  expect(result.failed).toBe(true);
  return String(result.errorInstance).split('\n')[0]!;
}
