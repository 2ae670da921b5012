import type { Store } from '../../store/store.js';
import { StoreFullError } from '../../store/errors.js';
import type { CallProbe } from '../../sim/store/call-probe.js';

/** Store methods that send a write (a script may write; TIME, WAIT and reads do not). */
const WRITES: ReadonlySet<string | symbol> = new Set(['zadd', 'zrem', 'hset', 'hdel', 'del', 'runScript', 'runScriptThenWait']);

/**
 * ioredis fails the commands still in its offline queue with this once it gave up reconnecting for
 * them: those were never written to a socket (its flushQueue). But it fails the commands in flight on
 * a connection that broke with the same error: a write in flight when its Dynomite was killed got it
 * and was applied on all three backends (3/3, DYNOMITE.md "A client whose node dies"). So it means
 * "never sent" only when the connection was not ready when the call was made.
 */
const OFFLINE_OR_IN_FLIGHT = 'MaxRetriesPerRequestError';

/**
 * Redis refuses an out-of-memory write before running it — a script at its first write, before which
 * it wrote nothing (a script that already wrote is let through) — so the call's write was not applied,
 * as the simulator scores the same `OOM` reply. Where replies are votes, another replica may have run it.
 */
const refusedBeforeRunning = (err: unknown, votes: boolean): boolean => !votes && err instanceof StoreFullError && err.written.length === 0;

/**
 * Writes whose reply counts what they changed (ZADD: members added, ZREM/HDEL/DEL: removed, HSET:
 * fields created): a count above 0 shows the data changed. A score or value overwritten answers 0 and
 * a script's reply says nothing, so those stay unseen here (the simulated store sees every change).
 */
const COUNTED: ReadonlySet<string | symbol> = new Set(['zadd', 'zrem', 'hset', 'hdel', 'del']);

/**
 * A real store that tells the recording probe what a call's writes may have done, as the simulated
 * store does (docs/CHECKER.md §1.2): a write that was answered, or that failed after it may have left (a timeout,
 * a closed connection), may have been applied, so the call is `unknown`, not `fail`; one ioredis never
 * sent (its connection was not `connected()` when the call was made), or one Redis refused as out of
 * memory (StoreFullError), was not. `votes`: on Dynomite a refusal is a reply chosen by the coordinator (its own, or a
 * vote) while the other replicas ran the write too (an ack voted down to 0 that had run on one replica,
 * seen on the real cluster), so a refused write is `unknown` there, as in the simulator (CallProbe.writeMayHaveApplied).
 * A write whose reply counts a change marks its call as having changed data, as the simulated store
 * marks every write that changed a node's data: a call that then returns a refusal (a legacy `remove`
 * answering false after its ZREM took the message's lease) is `unknown` on both sides, not `fail` here.
 */
export function probingStore(store: Store, probe: CallProbe, votes: boolean, connected: () => boolean = () => true): Store {
  const mayHaveApplied = () => probe.writeMayHaveApplied(votes);
  return new Proxy(store, {
    get(target, prop, receiver) {
      const value: unknown = Reflect.get(target, prop, receiver);
      if (typeof value !== 'function') return value;
      if (!WRITES.has(prop)) return value.bind(target);
      return async (...args: unknown[]) => {
        // Ready now: the write goes to the socket at once (not to the offline queue).
        const sent = connected();
        // The call this write belongs to is the one in flight now (another may begin before the reply).
        const effects = probe.effects;
        try {
          const reply: unknown = await (value as (...a: unknown[]) => Promise<unknown>).apply(target, args);
          mayHaveApplied();
          if (COUNTED.has(prop) && typeof reply === 'number' && reply > 0) effects?.note();
          return reply;
        } catch (err) {
          if ((sent || !(err instanceof Error && err.name === OFFLINE_OR_IN_FLIGHT)) && !refusedBeforeRunning(err, votes)) mayHaveApplied();
          throw err;
        }
      };
    },
  });
}
