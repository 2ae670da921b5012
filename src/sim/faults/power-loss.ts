import { between } from '../settings/atoms.js';
import { supervisedCrashFamily } from './supervised-crash.js';

/**
 * A node's machine loses power (or its kernel panics): unlike a killed process, what the server had
 * written to its file but not fsynced is gone: with appendfsync everysec up to the last second of
 * writes, with always nothing it acknowledged. No real means: the real twins kill processes, they do
 * not cut a machine's power.
 */
export const powerLossFamily = supervisedCrashFamily({
  family: 'power-loss',
  kind: 'power-loss',
  description: 'a store node\'s machine loses power; it restarts from what its disk had fsynced',
  zoneText: "the zone whose node's machine loses power: only what its disk had fsynced survives (topology.persistence)",
  durationText: 'ms until the machine and its server are back (before or after a failover)',
  loss: 'power-lost',
  durationMs: (rng, ctx) => {
    const t = ctx.config.topology;
    return t.kind === 'primary-replica' ? between(rng, 0.1 * t.failoverDelayMs, 3 * t.failoverDelayMs) : between(rng, 100, ctx.safetyMs / 2);
  },
  bandLabel: 'power lost:',
  advice: {
    atLeastOnce: 'appendfsync everysec loses up to a second of acknowledged writes with the machine: use appendfsync always, or durable writes (WAIT) so that a replica holds them, with a primary that comes back after failover.',
    unackRecovery: 'un-ack entries written since the last fsync die with the machine: appendfsync always, or durable writes (WAIT). With durable writes on a Redis primary, a restarted Redis (primary or replica) counts for WAIT only after a full resynchronisation, `repl-diskless-sync-delay` (5 s by default) later: every durable write, pops included, fails until then; set it to 0 where replicas sync over a fast network.',
    noDoublePop: 'a lease written since the last fsync is lost with the machine, and one taken on a primary that came back before Sentinel promoted a replica (about 1.2 s after down-after) is lost at the promotion: the message is handed out again. Use appendfsync always, and start a primary whose machine lost power only once Sentinel has replaced it, or accept duplicates.',
    acksAreFinal: 'an ack written since the last fsync is undone with the machine: appendfsync always. A primary that came back before Sentinel promoted a replica keeps serving the clients that reached it, from its own data, until Sentinel demotes it about 10 s later: a message acked on the new primary is handed out again there. Start a primary whose machine lost power only once Sentinel has replaced it.',
    deliveredPromptly: 'while the node is down its shard cannot be popped: due messages wait for the restart or the failover. With durable writes on a Redis primary, a restarted Redis (primary or replica) counts for WAIT only after a full resynchronisation, `repl-diskless-sync-delay` (5 s by default) later: every durable write, pops included, fails until then; set it to 0 where replicas sync over a fast network.',
  },
  bandColour: '#8e562e',
  docsNote: "what the node keeps: `topology.persistence`; no real means (the real twins kill processes; they cut no machine's power); drawn only when named: never by a swarm row or `explore` by default",
});
