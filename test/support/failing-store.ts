import type { Store } from '../../src/store/store.js';

export interface Failure {
  /** The rejection's message. */
  readonly message?: string;
  /** The connection dies for good: every later call rejects too (release included), as on a closed ioredis client. */
  readonly forGood?: boolean;
}

/** A store whose `failing`-th call among those `counts` selects rejects (and, `forGood`, every call after it). */
export function failingOn(store: Store, counts: (prop: string, args: unknown[]) => boolean, failing: number, failure: Failure = {}): Store {
  let n = 0;
  let dead = false;
  return new Proxy(store, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        const fails = dead || (counts(String(prop), args) && ++n === failing);
        if (fails && failure.forGood) dead = true;
        if (fails) return Promise.reject(new Error(failure.message ?? 'injected store failure'));
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
}
