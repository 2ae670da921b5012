/**
 * What the simulated world reports as it happens, for faults to measure their exposure (docs/CHECKER.md §5):
 * a refused request, a message dropped by a partition, a replicated write, a promotion, writes lost,
 * work held by a paused process, a storage error, a peer link timed out, a delivery.
 * Components emit; a fault listens only while it is active.
 */
interface ObservationMap {
  /** A request reached a node that is down. */
  refused: { readonly node: string };
  /** A message between two zones was dropped by a partition. */
  dropped: { readonly from: string; readonly to: string };
  /** A write was replicated (with this lag, ms). */
  replicated: { readonly lagMs: number };
  /** A replica was promoted to primary. */
  promoted: { readonly node: string };
  /** A replica must resynchronise in full from this primary (it or the primary restarted): WAIT does not count it meanwhile. */
  'full-sync': { readonly node: string; readonly primary: string };
  /** A replica's full resynchronisation ended: it holds the primary's data set and counts for WAIT again. */
  resynced: { readonly node: string };
  /** Writes that existed nowhere else died with a node (count of operations or keys). */
  lost: { readonly node: string; readonly writes: number };
  /** A client sent a request to a node outside its own zone. */
  remote: { readonly actor: string; readonly nodeZone: string };
  /** A request or command reached a paused process (a Dynomite node or its redis) and waits for it. */
  held: { readonly node: string; readonly process: 'dynomite' | 'redis' };
  /**
   * A Dynomite node answered with a storage error: its redis is dead; a request did not answer in time
   * (Dynomite closed the datastore connection); a request was dropped queued behind that one; or the
   * connection was still closed; or its restarted redis was not served yet.
   */
  'storage-error': { readonly node: string; readonly cause: 'dead' | 'timeout' | 'dropped' | 'disconnected' | 'reconnecting' };
  /** A message was sent across a partitioned pair of zones: it waits for the heal. */
  'held-by-partition': { readonly from: string; readonly to: string };
  /** A Dynomite node gave up on its connection to a peer (a request outlived its timeout). */
  'link-timeout': { readonly from: string; readonly to: string };
  /** A request did not reach a peer: one of the two Dynomites restarted too recently for their link to be up. */
  'peer-reconnecting': { readonly from: string; readonly to: string };
  /** A request was dropped because the link to a still-paused peer had timed out. */
  'link-dropped': { readonly from: string; readonly to: string };
  /** A pop returned a message to a client (the pop was invoked at `invokedAt`). */
  delivered: { readonly actor: string; readonly id: string; readonly invokedAt: number };
}

type ObservationKind = keyof ObservationMap;
type Listener<K extends ObservationKind> = (o: ObservationMap[K]) => void;

export class Observations {
  private readonly listeners = new Map<ObservationKind, Set<Listener<never>>>();

  /** Starts listening; returns the function that stops it. */
  listen<K extends ObservationKind>(kind: K, fn: Listener<K>): () => void {
    let set = this.listeners.get(kind);
    if (!set) this.listeners.set(kind, (set = new Set()));
    const entry = fn as Listener<never>;
    set.add(entry);
    return () => set.delete(entry);
  }

  emit<K extends ObservationKind>(kind: K, o: ObservationMap[K]): void {
    const set = this.listeners.get(kind) as Set<Listener<K>> | undefined;
    if (set) for (const fn of set) fn(o);
  }
}
