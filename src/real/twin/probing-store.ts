import type { Store } from '../../store/store.js';
import type { CallProbe } from '../../sim/call-probe.js';

/** Store methods that send a write (a script may write; TIME, WAIT and reads do not). */
const WRITES: ReadonlySet<string | symbol> = new Set(['zadd', 'zrem', 'hset', 'hdel', 'del', 'runScript', 'runScriptThenWait']);

/**
 * A real store that tells the recording probe what a call sent, as the simulated store does
 * (SPEC §6.1): once a write was handed to the client, an error may come after it ran, so the call
 * is `unknown`, not `fail`. A real client cannot tell a write refused before it left from one lost
 * after, so every write counts as sent. `votes`: on Dynomite a refusal is a reply chosen by the
 * coordinator (its own, or a vote) while the other replicas ran the write too (an ack voted down to 0
 * that had run on one replica, seen on the real cluster), so a refused write is `unknown` there; the
 * simulator knows and amends exactly those a replica applied.
 */
export function probingStore(store: Store, probe: CallProbe, votes: boolean): Store {
  return new Proxy(store, {
    get(target, prop, receiver) {
      const value: unknown = Reflect.get(target, prop, receiver);
      if (typeof value !== 'function' || !WRITES.has(prop)) return typeof value === 'function' ? value.bind(target) : value;
      return (...args: unknown[]) => {
        probe.mayHaveApplied = true;
        if (votes) probe.effects?.note();
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
}
