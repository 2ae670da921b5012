import { between } from '../settings/atoms.js';
import { supervisedCrashFamily } from './supervised-crash.js';

/**
 * A server process killed and down past Sentinel's failover delay (primary-replica): a replica is
 * promoted, and what the old primary acknowledged but had not replicated to it is gone whatever the
 * old primary's disk kept, since it rejoins as a replica and resyncs from the new primary. The
 * promotion comes about 1.2 s after the delay, so a supervisor may start the old primary first: it
 * serves as primary until then, and for the clients that reached it until Sentinel demotes it about
 * 10 s after the promotion; what it takes meanwhile is lost too.
 */
export const processCrashFailover = supervisedCrashFamily({
  family: 'process-crash-failover',
  kind: 'kill-process-past-failover',
  description: 'a store node\'s process is killed and restarted from its disk after a failover',
  zoneText: 'the zone whose server process is killed (SIGKILL): it loses its memory and keeps its disk (topology.persistence)',
  durationText: 'ms until its supervisor starts it again, drawn past the failover delay: a killed primary is replaced either way (Sentinel promotes about 1.2 s after the delay; started before that, it serves as primary until the promotion, and for the clients that reached it until Sentinel demotes it about 10 s later) and rejoins as a replica',
  loss: 'process-killed',
  requiresTopology: 'primary-replica',
  durationMs: (rng, ctx) => between(rng, 1.5 * ctx.config.topology.failoverDelayMs, 3 * ctx.config.topology.failoverDelayMs),
  bandLabel: 'process killed past failover:',
  advice: {
    atLeastOnce: 'a promoted replica lacks what the old primary acknowledged and had not replicated, whatever its disk kept: use durable writes (WAIT for a replica) for pushes and acks.',
    unackRecovery: 'un-ack entries the promoted replica never received are lost: use durable writes (WAIT). Clients that reached an old primary its supervisor started before the promotion stay on it, apart from the new primary, until Sentinel demotes it about 10 s later: have the supervisor start a killed primary only once Sentinel names another (as its replica).',
    noDoublePop: 'a lease not replicated before the failover is lost, and so is one taken on the old primary if its supervisor started it before Sentinel promoted a replica (about 1.2 s after down-after): the message is handed out again. Pops are not durable: have the supervisor start a killed primary only once Sentinel names another (as its replica), or accept duplicates.',
    acksAreFinal: 'an ack not replicated before the failover is undone: use durable acks and treat DurabilityError as unknown. An old primary its supervisor started before the promotion keeps serving the clients that reached it, from its own data, until Sentinel demotes it about 10 s later: a message acked on the new primary is handed out again there. Have the supervisor start a killed primary only once Sentinel names another (as its replica).',
    deliveredPromptly: 'while the primary is down and until Sentinel promotes a replica (failoverDelayMs, then about 1.2 s for its vote and the promotion), nothing can be popped.',
  },
  bandColour: '#750b1c',
  docsNote: "what the node keeps: `topology.persistence`; drawn only when named: never by a swarm row or `explore` by default",
});
