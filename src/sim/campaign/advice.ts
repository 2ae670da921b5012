import type { PropertyName } from '../../model/properties.js';
import type { FaultFamily } from '../faults/index.js';

/**
 * What a user can do about a mechanism: by the fault family behind it and the property it breaks.
 * The mechanisms themselves are classified by code; this table only says what helps against each.
 */
type Cause = FaultFamily | 'no fault' | 'clock of a node';

/** Matched in this order against the start of a mechanism's cause: the specific causes come first. */
const ADVICE: Partial<Record<Cause, Partial<Record<PropertyName, string>>>> = {
  // Under server time it is a node's clock that matters: serverTime cannot help against it.
  'clock of a node': {
    deliveredPromptly: 'a node clock that runs behind holds due messages back while consumers wait: keep node clocks in sync.',
    noDoublePop: 'under serverTime the store\'s clock sets every deadline: a node clock that jumps ahead (or a promoted replica whose clock runs ahead) expires leases early. Keep node clocks in sync (NTP with slewing, no steps) and leases well above the worst skew.',
    unackRecovery: 'a node clock that runs behind re-queues expired leases late: keep node clocks in sync.',
    onTime: 'a node clock that runs ahead releases delayed messages early: keep node clocks in sync.',
  },
  'node-crash': {
    deliveredPromptly: 'while a shard\'s node is down or failing over, its consumers cannot pop: due messages wait for the failover (failoverDelayMs) or the restart.',
    priorityOrder: 'a replica that missed a more urgent push serves a less urgent message first until the push arrives: pop through the quorum connection.',
    atLeastOnce:
      'a write acknowledged by one node can die with it: on Redis, persist the primary (AOF, appendfsync always) and use durable writes (WAIT) for pushes; on Dynomite no repair exists, so a node that lost data must be rebuilt before it rejoins.',
    unackRecovery: 'un-ack entries die with unreplicated writes; durable acks and a primary that restarts only after failover keep them.',
    noDoublePop: 'a lease that was not replicated is lost at promotion, so the message is handed out again while its holder still works: make lease writes durable (WAIT) or accept duplicates.',
    acksAreFinal: 'an ack that was not replicated is lost at promotion: use durable acks and treat DurabilityError as unknown.',
  },
  partition: {
    deliveredPromptly: 'consumers cut off from their shard\'s node cannot pop until the partition heals.',
    atLeastOnce: 'writes across a partition arrive only at the heal, after writes made since on the other side, and replicas that re-execute them on a state that moved on diverge: use a consistency level that needs a majority, and time out and retry unknown pushes.',
    noDoublePop: 'replicas that missed a lease hand the message out again: pop through the quorum connection only.',
    acksAreFinal: 'an ack that reached one side only is undone by the other: ack through the quorum connection.',
  },
  'client-failover': {
    noDoublePop: 'a client that fails over to another replica sees its state, not its own zone\'s: leases and acks must be written with quorum.',
    acksAreFinal: 'after a client fails over, the replica it now uses may not have its ack: ack with quorum, or pin clients to their zone.',
  },
  'client-pause': {
    deliveredPromptly: 'a pop whose client is paused holds its shard\'s due messages back until it resumes (another consumer of the shard takes them only if it is free): run more than one consumer per shard and keep pauses short.',
    noDoublePop: 'a pause longer than the lease lets the reaper hand the message to someone else: make the lease longer than the longest pause, or extend it while working.',
  },
  clock: {
    deliveredPromptly: 'a consumer whose clock runs behind asks only for messages due by its own clock, so due messages wait while it polls: use serverTime: true.',
    priorityOrder: 'consumers whose clocks differ disagree on what is due, so a less urgent message one of them thinks due is taken before a more urgent one it does not: use serverTime: true.',
    noDoublePop: 'a reaper whose clock runs ahead takes leases back early: use serverTime: true (deadlines from the store\'s clock).',
    unackRecovery: 'a clock that runs behind re-queues expired leases late: use serverTime: true.',
    onTime: 'a consumer whose clock runs ahead takes delayed messages early: use serverTime: true.',
  },
  'consumer-clocks': {
    deliveredPromptly: 'consumers whose clocks run behind ask only for messages due by their own clock, so due messages wait while they poll: use serverTime: true.',
    onTime: 'consumers whose clocks run ahead take delayed messages before they are due: use serverTime: true.',
    noDoublePop: 'reapers whose clocks run ahead take leases back early: use serverTime: true.',
    unackRecovery: 'reapers whose clocks run behind re-queue expired leases late: use serverTime: true.',
  },
  'lag-spike': {
    deliveredPromptly: 'a pop reads a replica the push has not reached yet: the delay is the replication lag; for atomic on Dynomite it is bounded by settleMs.',
    priorityOrder: 'a replica that has not received a more urgent push yet serves a less urgent one first.',
    atLeastOnce: 'atomic on Dynomite assumes replication is faster than settleMs: raise settleMs above the worst replication lag.',
    unackRecovery: 'atomic on Dynomite assumes replication is faster than settleMs: raise settleMs above the worst replication lag.',
    noDoublePop: 'replicas that lag behind a lease (or, for atomic on Dynomite, behind settleMs) hand the message out again: pop with quorum and raise settleMs above the worst replication lag.',
  },
  'backend-crash': {
    deliveredPromptly: 'while a shard\'s redis is down its consumers get storage errors: due messages wait for the restart.',
    atLeastOnce:
      "a redis that dies behind a live Dynomite misses every write meanwhile, and one restarted empty is never repaired: persist redis (AOF) and rebuild a node's data before it rejoins; a storage error is an unknown outcome, not a refusal — retry pushes idempotently.",
    unackRecovery: 'un-ack entries on a redis that restarted empty are gone there, and nothing copies them back: rebuild the node before it rejoins.',
    acksAreFinal: 'an ack that a dead redis missed leaves its replica holding the message: rebuild that replica before it serves reads again.',
  },
  'node-stall': {
    deliveredPromptly: 'a paused node or redis answers nothing meanwhile: its shard\'s messages wait for the stall to end (up to the 5 s datastore timeout).',
    atLeastOnce: 'a paused Dynomite or redis runs what it received late, and drops writes sent after a peer link timed out: keep pauses (fork, swap, GC) well below the peer timeout and treat timed-out writes as unknown.',
    noDoublePop: 'a paused replica applies leases and acks late, after the others moved on: pop and ack with quorum and keep leases longer than the longest stall.',
  },
  'memory-pressure': {
    deliveredPromptly: 'a full Redis refuses pushes (StoreFullError) until memory is freed: size maxmemory for the backlog, alert on used_memory, and retry refused pushes with back-off; atomic consumers keep draining meanwhile.',
    atLeastOnce:
      'on a full Redis (noeviction) legacy writes a batch one message at a time, so a refused batch leaves part of itself written (a payload without its queue entry is never delivered), and its claims are refused so nothing drains: use atomic mode, whose push is refused whole and whose consumers still run.',
    unackRecovery: 'legacy claims and re-queues write ZADD first, which a full Redis refuses: use atomic mode.',
    priorityOrder: 'a push refused while Redis was full and retried later is ranked behind what was pushed meanwhile: retry refused pushes promptly, or size maxmemory for the backlog.',
  },
  eviction: {
    atLeastOnce:
      "an allkeys-* policy deletes whole queue keys (the message hash, a ready or un-ack set) when Redis is full, and nothing reports it: run the queue's Redis with maxmemory-policy noeviction (IoredisStore refuses allkeys-* unless evictionCheck says otherwise).",
    unackRecovery: "an evicted un-ack set takes its leases with it, so nothing re-queues them: use maxmemory-policy noeviction.",
    deliveredPromptly: "an evicted message hash or ready set leaves ids that can never be delivered: use maxmemory-policy noeviction.",
    acksAreFinal: 'an evicted key can be written again by a later push or re-queue on a state that lost its history: use maxmemory-policy noeviction.',
    noDoublePop: 'an evicted lease hash or un-ack set forgets who holds a message: use maxmemory-policy noeviction.',
    priorityOrder: 'an evicted rank (META) or ready set reorders what is left: use maxmemory-policy noeviction.',
  },
  'no fault': {
    priorityOrder: 'the mode orders by score, not priority first (legacy: now + delay + priority/100, so priority decides only within one millisecond): use atomic mode, which orders every due message by priority, then push order.',
    deliveredPromptly: 'due messages waited while consumers polled without a fault: check the poll interval and, on Dynomite, settleMs; legacy prefetches only the first ids of its replica, which a stale head can block.',
    onTime: 'a message delivered before its due time without a fault: a bug in the mode.',
    atLeastOnce: 'the queue itself dropped a message: this is a bug in the mode, not the environment.',
    unackRecovery: 'a lease that nobody re-queued in time: check the reaper interval against the bound.',
  },
};

/** Advice for a mechanism key (`kind ← cause`), from the first family named in its cause. */
export function adviceFor(property: PropertyName, cause: string): string | null {
  const family = (Object.keys(ADVICE) as Cause[]).find((f) => cause.startsWith(f));
  return family ? (ADVICE[family]?.[property] ?? null) : null;
}
