import type { AtomicQueue } from '../../src/queue/atomic-queue.js';
import type { QueueKeys } from '../../src/queue/keys.js';
import { PROMOTE_BATCH } from '../../src/queue/scripts/atomic-common.js';
import type { Store } from '../../src/store/store.js';

/**
 * Two edges of the atomic pop loop (atomic-common.ts: promote, then lease from READY round by round)
 * that the property suites hold only a few ids to reach rarely or never, as targeted checks: the
 * CI suites run them on every backend, the Lua mutation tester on one simulated node. Each returns
 * what differs from the promise, or null.
 */

/** The atomic calls that promote due messages inside their script before they read READY. */
export const PROMOTING_CALLS = ['pop', 'ackAndPop', 'peek'] as const;
export type PromotingCall = (typeof PROMOTING_CALLS)[number];
/** The atomic calls that lease in rounds. */
export const LEASING_CALLS = ['pop', 'ackAndPop'] as const;
export type LeasingCall = (typeof LEASING_CALLS)[number];

export interface PopRig {
  /** An atomic queue on shard `a`, empty, no reaper. */
  readonly queue: AtomicQueue;
  readonly store: Store;
  readonly keys: QueueKeys;
  /** Moves the queue's clock. */
  readonly advance: (ms: number) => Promise<void>;
  /** How to await a call on the store (the simulator runs virtual time meanwhile). */
  readonly run?: <T>(p: Promise<T>) => Promise<T>;
}

const direct = <T>(p: Promise<T>) => p;

function take(call: LeasingCall, queue: AtomicQueue, count: number) {
  return call === 'pop' ? queue.pop(count) : queue.ackAndPop('nobody', undefined, count).then((r) => r.messages);
}

/**
 * The bound of one promotion (PROMOTE_BATCH per script call): PROMOTE_BATCH + 1 delayed messages,
 * the most urgent one (priority 0) due last; once all are due, one `call` must promote exactly
 * PROMOTE_BATCH of them, earliest due first, so one due id is left delayed and the call meets a
 * batch message, not the urgent one.
 */
export async function promotionBoundDiffers(call: PromotingCall, rig: PopRig): Promise<string | null> {
  const { queue, store, keys } = rig;
  const run = rig.run ?? direct;
  const n = PROMOTE_BATCH + 1;
  const backlog = Array.from({ length: n }, (_, i) => ({ id: `m${i}`, payload: `p${i}`, timeout: 1_000 + i, priority: i === n - 1 ? 0 : 50 }));
  for (let i = 0; i < n; i += 500) await run(queue.push(backlog.slice(i, i + 500)));
  await rig.advance(1_000 + n);
  const met = await run(call === 'peek' ? queue.peek(1) : take(call, queue, 1));
  const delayed = await run(store.zcard(keys.queue('a')));
  if (delayed !== 1) return `${call}: ${delayed} due ids left delayed, expected 1 (one promotion moves ${PROMOTE_BATCH})`;
  if (met.length !== 1 || met[0]!.priority !== 50) return `${call}: met ${JSON.stringify(met.map((m) => m.id))}, expected one batch message (priority 50)`;
  return null;
}

/**
 * A stale id mid-pop: four due messages a, b, c, d in pop order, b's payload lost. One `call` of two
 * must drop b, lease a and c (a second round takes exactly the one still missing) and leave d ready.
 */
export async function staleMidPopDiffers(call: LeasingCall, rig: PopRig): Promise<string | null> {
  const { queue, store, keys } = rig;
  const run = rig.run ?? direct;
  await run(queue.push(['a', 'b', 'c', 'd'].map((id) => ({ id, payload: id }))));
  await run(store.hdel(keys.message, ['b']));
  const leased = (await run(take(call, queue, 2))).map((m) => m.id);
  if (JSON.stringify(leased) !== '["a","c"]') return `${call}(2) leased ${JSON.stringify(leased)}, expected ["a","c"]`;
  const ready = await run(store.zcard(keys.ready('a')));
  if (ready !== 1) return `${call}(2) left ${ready} ids ready, expected 1 (d)`;
  return null;
}
