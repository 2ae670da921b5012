import type { PropertyName } from '../model/properties.js';
import type { FaultFamily } from './faults/index.js';

/**
 * What a user can do about a mechanism: by the fault family behind it and the property it breaks.
 * The mechanisms themselves are classified by code; this table only says what helps against each.
 */
type Cause = FaultFamily | 'no fault' | 'clock of a node';

/** Matched in this order against the start of a mechanism's cause: the specific causes come first. */
const ADVICE: Partial<Record<Cause, Partial<Record<PropertyName, string>>>> = {
  // Under server time it is a node's clock that matters: serverTime cannot help against it.
  'clock of a node': {
    noDoublePop: 'under serverTime the store\'s clock sets every deadline: a node clock that jumps ahead (or a promoted replica whose clock runs ahead) expires leases early. Keep node clocks in sync (NTP with slewing, no steps) and leases well above the worst skew.',
    unackRecovery: 'a node clock that runs behind re-queues expired leases late: keep node clocks in sync.',
    onTime: 'a node clock that runs ahead releases delayed messages early: keep node clocks in sync.',
  },
  'node-crash': {
    atLeastOnce:
      'a write acknowledged by one node can die with it: on Redis, persist the primary (AOF, appendfsync always) and use durable writes (WAIT) for pushes; on Dynomite no repair exists, so a node that lost data must be rebuilt before it rejoins.',
    unackRecovery: 'un-ack entries die with unreplicated writes; durable acks and a primary that restarts only after failover keep them.',
    noDoublePop: 'a lease that was not replicated is lost at promotion, so the message is handed out again while its holder still works: make lease writes durable (WAIT) or accept duplicates.',
    acksAreFinal: 'an ack that was not replicated is lost at promotion: use durable acks and treat DurabilityError as unknown.',
  },
  partition: {
    atLeastOnce: 'writes on the far side of a partition are not replicated; use a consistency level that needs a majority, and time out and retry unknown pushes.',
    noDoublePop: 'replicas that missed a lease hand the message out again: pop through the quorum connection only.',
    acksAreFinal: 'an ack that reached one side only is undone by the other: ack through the quorum connection.',
  },
  'client-failover': {
    noDoublePop: 'a client that fails over to another replica sees its state, not its own zone\'s: leases and acks must be written with quorum.',
    acksAreFinal: 'after a client fails over, the replica it now uses may not have its ack: ack with quorum, or pin clients to their zone.',
  },
  'client-pause': {
    noDoublePop: 'a pause longer than the lease lets the reaper hand the message to someone else: make the lease longer than the longest pause, or extend it while working.',
  },
  clock: {
    noDoublePop: 'a reaper whose clock runs ahead takes leases back early: use serverTime: true (deadlines from the store\'s clock).',
    unackRecovery: 'a clock that runs behind re-queues expired leases late: use serverTime: true.',
    onTime: 'a consumer whose clock runs ahead takes delayed messages early: use serverTime: true.',
  },
  'lag-spike': {
    atLeastOnce: 'atomic on Dynomite assumes replication is faster than settleMs: raise settleMs above the worst replication lag.',
    unackRecovery: 'atomic on Dynomite assumes replication is faster than settleMs: raise settleMs above the worst replication lag.',
    noDoublePop: 'replicas that lag behind a lease (or, for atomic on Dynomite, behind settleMs) hand the message out again: pop with quorum and raise settleMs above the worst replication lag.',
  },
  'backend-crash': {
    atLeastOnce:
      "a redis that dies behind a live Dynomite misses every write meanwhile, and one restarted empty is never repaired: persist redis (AOF) and rebuild a node's data before it rejoins; a storage error is an unknown outcome, not a refusal — retry pushes idempotently.",
    unackRecovery: 'un-ack entries on a redis that restarted empty are gone there, and nothing copies them back: rebuild the node before it rejoins.',
    acksAreFinal: 'an ack that a dead redis missed leaves its replica holding the message: rebuild that replica before it serves reads again.',
  },
  'node-stall': {
    atLeastOnce: 'a paused Dynomite or redis runs what it received late, and drops writes sent after a peer link timed out: keep pauses (fork, swap, GC) well below the peer timeout and treat timed-out writes as unknown.',
    noDoublePop: 'a paused replica applies leases and acks late, after the others moved on: pop and ack with quorum and keep leases longer than the longest stall.',
  },
  'no fault': {
    atLeastOnce: 'the queue itself dropped a message: this is a bug in the mode, not the environment.',
    unackRecovery: 'a lease that nobody re-queued in time: check the reaper interval against the bound.',
  },
};

/** Advice for a mechanism key (`kind ← cause`), from the first family named in its cause. */
export function adviceFor(property: PropertyName, cause: string): string | null {
  const family = (Object.keys(ADVICE) as Cause[]).find((f) => cause.startsWith(f));
  return family ? (ADVICE[family]?.[property] ?? null) : null;
}
