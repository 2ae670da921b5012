import type { Store } from '../../store/store.js';
import type { CallEffects } from './call-effects.js';

/**
 * What one client call did to the store, for its outcome (docs/CHECKER.md §1.2): whether any write it sent
 * may have been applied. A write refused before it reached a store (the node was down, a replica
 * refused it as read-only) was not; one that was answered, errored after running, or timed out may
 * have been — including every error a live Dynomite node answers (its redis dead or stalled, its
 * peers timed out, no quorum): by then it had sent the write to its peers (DYNOMITE.md "Writes
 * reported as failed are often applied").
 */
export class CallProbe {
  mayHaveApplied = false;
  /** What replicas do with the writes of the recorded call in flight (none between calls: a pop's writes are not an ack's). */
  effects: CallEffects | null = null;

  /**
   * A write of the call was answered, or failed after it may have left: it may have been applied.
   * Where replies are votes (`votes`: repliesAreVotes), the client cannot tell a refusal from a write
   * another replica ran, so a refusal the call returns is `unknown` at once — scored as a client sees
   * it, the same in the simulator (which could know) and on real processes (which cannot).
   */
  writeMayHaveApplied(votes: boolean, effects: CallEffects | null = this.effects): void {
    this.mayHaveApplied = true;
    if (votes) effects?.note();
  }
}

/**
 * Whether a store's replies are votes: Dynomite with more than one rack, where the coordinator answers
 * with its own reply or a quorum's while other replicas run the write too. One rack has nothing else
 * that could have run a write it refused.
 */
export function repliesAreVotes(store: Pick<Store, 'replication' | 'racks'>): boolean {
  return store.replication === 'dynomite' && (store.racks ?? 1) > 1;
}
