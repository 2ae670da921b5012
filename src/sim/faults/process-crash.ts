import { between } from '../settings/atoms.js';
import { supervisedCrashFamily } from './supervised-crash.js';

/**
 * A server process killed and started again by its supervisor before Sentinel acts: what it comes
 * back with is what its disk kept. With an AOF (always, or everysec: the file is written before the
 * reply, and a killed process's written file survives) that is every write it acknowledged; with no
 * persistence it is nothing, and a primary that comes back empty in time stays the primary.
 */
export const processCrash = supervisedCrashFamily({
  family: 'process-crash',
  kind: 'kill-process',
  description: 'a store node\'s process is killed and restarted from its disk before any failover',
  zoneText: "the zone whose server process is killed (SIGKILL): it loses its memory and keeps its disk (topology.persistence)",
  durationText: 'ms until its supervisor starts it again, from its disk (on a primary with replicas, drawn within the failover delay)',
  loss: 'process-killed',
  durationMs: (rng, ctx) => {
    const t = ctx.config.topology;
    // Started again within the failover delay, leaving room for the real server's start-up.
    return t.kind === 'primary-replica' ? between(rng, 0.1 * t.failoverDelayMs, 0.5 * t.failoverDelayMs) : between(rng, 100, ctx.safetyMs / 2);
  },
  bandLabel: 'process killed:',
  advice: {
    atLeastOnce: 'a node without persistence restarts empty, and a primary that restarts empty before failover makes its replicas empty too: run the AOF (appendfsync always or everysec) or keep an empty primary down until Sentinel promotes a replica (keepEmptyPrimaryDown).',
    unackRecovery: 'un-ack entries die with a node that restarts empty: persist it (AOF) or keep an empty primary down until failover.',
    noDoublePop: 'a lease lost with the memory of a node that restarted empty is handed out again: persist the node (AOF).',
    acksAreFinal: 'an ack lost with the memory of a node that restarted empty is undone: persist the node (AOF).',
    deliveredPromptly: 'while the node is down its shard cannot be popped: due messages wait for the restart. With durable writes on a Redis primary, a restarted Redis (primary or replica) counts for WAIT only after a full resynchronisation, `repl-diskless-sync-delay` (5 s by default) later: every durable write, pops included, fails until then; set it to 0 where replicas sync over a fast network.',
  },
  bandColour: '#a4262c',
  docsNote: "what the node keeps: `topology.persistence`; drawn only when named: never by a swarm row or `explore` by default",
});
