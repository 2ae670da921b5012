/**
 * What a sequence runs on besides the store. The model is always one shard on a hand-driven clock;
 * a layout changes what the queue's scripts see of it.
 */
export interface Layout {
  /** Atomic: how long a due message waits before promotion (the queue's settleMs; 0 but on Dynomite). */
  readonly settleMs: number;
  /** An empty shard listed first, so that the scripts' per-shard loops and the local shard's keys are not the first ones. */
  readonly extraShard: boolean;
  /** Atomic: the scripts read the server's clock (the setup's `serverClock`, which the model follows). */
  readonly serverTime: boolean;
}
