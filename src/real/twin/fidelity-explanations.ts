import type { Explanations } from './fidelity-page.js';

/**
 * Late deliveries on a loaded machine: the delivery bound is the simulated network's, the real round
 * trips waited for a CPU. Measured by re-running a row's real twin alone with its history at the
 * run's load and reading the late findings next to the bound (on the basic-workload configurations of the same set-ups and faults).
 */
const LOADED_MACHINE =
  'Delivered promptly is judged against a delivery bound B taken from the configuration and the simulated network (82 ms on these primary-replica rows: a 10 ms long-poll step, a replication allowance and four simulated round trips). Measured on the same set-ups and faults under the basic workload, whose real runs shared 2 cores with other work (a 1-minute load average of 12–32, 24 on average, sampled each minute of the run): a real pop waited for a CPU between its round trips and the bound was overrun by tens of milliseconds: `dynoq sim --real --configuration primary-replica/legacy/none --seed fidelity-primary-replica/legacy/none-0` at that load had 3 late messages, its worst pop 48 ms past the 82 ms bound, every other property held; on a primary with crashes, `dynoq sim --real --configuration primary-replica/atomic/node-crash --seed fidelity-primary-replica/atomic/node-crash-9` had 3 late messages, its worst pop 127 ms past the bound 1.5 s after the crash, where the same seed simulated held (a reconnection after the crash may add to the machine\'s share there). The simulator\'s round trips take the simulated network\'s time, so it is late only where a fault makes it late. Nothing found here is the queue\'s logic: the late pops overran the bound by tens to a hundred-odd milliseconds, never by a lost message; on a machine with idle cores the real rate is expected to fall toward the simulated one (not measured here).';

/** Real Redis, put over a maxmemory below its use, evicts everything and refuses writes; the simulator evicts just enough. */
const EVICTION_REFUSES =
  'The real fault sets the zone\'s maxmemory below what its redis-server uses by the drawn share of its dataset, under an allkeys policy. On the real server that does not end with the dataset trimmed to fit: measured on redis-server 7.0.15 holding 200 queued messages (183 KB of dataset, 1.06 MB used), `CONFIG SET maxmemory` 110 KB below its use under allkeys-lru evicted every key (DBSIZE 0), yet used memory stayed above the limit (1.064 MB against 0.96 MB) and the next write, a script\'s HSET, was refused with `OOM command not allowed when used memory > \'maxmemory\'`. So in a real run every write to that zone is refused for the fault\'s duration — `dynoq sim --real --configuration primary-replica/atomic/eviction --seed fidelity-primary-replica/atomic/eviction-1` had 16 pushes ok and 72 refused — while the simulator evicts only what does not fit and accepts every push (90 ok, 72 keys evicted, same seed). A refused push leaves nothing surely free, so nothing it pushed can be late: the real twin is judged on far fewer free messages and is late less often, although it loses as much (at-least-once is broken in every run on both sides). The simulator\'s eviction is kinder to writes than the real server\'s; which one a given Redis shows depends on how much of its memory is not dataset.';

/**
 * Priority order under eviction: every inversion is judged against an evicted message, and the real
 * server's refusals leave few deliveries after the loss to judge. Measured by running seeds for real
 * and re-simulated as happened, and counting what each inversion was judged against.
 */
const EVICTION_PRIORITY = `${EVICTION_REFUSES} Priority order on this row turns on the same refusals. Every priority inversion found is a pop that took a less urgent message while an evicted message of its shard was still counted free and due (it is never delivered, so nothing ends its wait): all 516 inversions of the row's 40 simulated seeds (\`dynoq sim --configuration primary-replica/atomic+server-time+durable/eviction --profile full --seed fidelity-primary-replica/atomic+server-time+durable/eviction/full-N\`, N = 0–39), and all 3 of the one real run of four that had any. An inversion needs a pop to deliver a less urgent message of that shard after the evicted one is due, and on the real server there are few such deliveries: seeds 0, 2, 3 and 5 run for real (\`dynoq sim --real\`, same configuration and seeds, at a 1-minute load of 2.1–3.8 on 2 cores) and re-simulated with their schedule as it happened had, while the fault held, 0, 15, 0 and 0 pushes ok and 57, 51, 15 and 24 refused for real against 54, 63, 18 and 24 ok and none refused re-simulated; from the fault on, the pops by the schedule delivered 10, 11, 0 and 0 messages for real against 26, 19, 8 and 23 re-simulated; priority order was broken for real in seed 2 only (3 inversions; not exercised in seed 5) and re-simulated in all four (14, 8, 3 and 10 inversions). The same loss is judged on both sides; the simulator, accepting every push, gives it more deliveries to be out of order with.`;

/**
 * DC_SAFE_QUORUM node crashes: the real-only late findings are a second verdict on messages both sides
 * lose when two replicas restart empty, and it turns on whether a pop of unknown outcome followed the
 * loss. Measured by running the row's seeds alone (real and re-simulated as happened) and reading the
 * findings and pops of each shard.
 */
const TWO_EMPTY_REPLICAS =
  'Measured on this set-up and fault draw under the basic workload (`dynomite/DC_SAFE_QUORUM/atomic/node-crash`, its own seeds). The late findings only the real runs made came from seeds where two of the three nodes restart empty (each crash loses its unreplicated writes): 8 of that row\'s 30 seeds (8, 11, 13, 14, 20, 21, 27, 29) draw that. Their messages are then lost on both sides alike — a DC_SAFE_QUORUM read is answered by the two empty replicas — and at-least-once agrees seed by seed. The checker also calls such a lost message *late* (free and due while pops of its shard kept coming back empty) unless a pop of that shard with an unknown outcome came after the loss: that pop may have leased the message, which is then no longer surely free. Whether one does turns on tens of milliseconds around the restart (a pop in flight while the restarted node\'s peers reconnect ends unknown), so the same seed goes either way: `dynoq sim --real --configuration dynomite/DC_SAFE_QUORUM/atomic/node-crash --seed fidelity-dynomite/DC_SAFE_QUORUM/atomic/node-crash-13`, run 3 times at a 1-minute load of 9–10 on 2 cores, was late in all 3 (4–10 late messages, at-least-once broken in each, as re-simulated); re-simulated with its schedule as it happened and each liveness restart at its real time, late in 1 of the 3 (the run whose nodes answered 190–235 ms after the safety phase, not the two at 280–385 ms), and with every node restarted at the liveness start (as this page\'s measurement re-simulated) late in none; seed 14 went the other way, late re-simulated (either way) and not for real. The row\'s other seeds run for real (0–12 and 20, at a 1-minute load of 7–13) were never late, nor re-simulated. So the difference is a second verdict about messages both sides lose, decided by timing at the restart, not delivered messages arriving late.';

/**
 * Dynomite partitions: a quorum pop of the cut-off zone blocks until the heal, about 1 s, right at the
 * delivery bound. Measured by running seeds the simulator held for real and reading each consumer's pops.
 */
const PARTITION_AT_THE_BOUND =
  'Measured on this set-up and fault draw under the basic workload (`dynomite/DC_QUORUM/atomic/partition`, its own seeds). On this row the delivery bound B is 1082 ms: Dynomite\'s 1,000 ms settle time (a message is poppable 1 s after it is due, so that every replica has it) plus 82 ms. A partition that cuts a zone\'s node from both peers (both ways, or its requests one way) blocks every quorum pop of that zone\'s consumers until it heals, often at the liveness start about 1 s later, and the pop then returns at once with what became due meanwhile — on both sides. Whether that is late turns on tens of milliseconds: the blocked pop alone stays under B (`dynoq sim --real --configuration dynomite/DC_QUORUM/atomic/partition --seed fidelity-dynomite/DC_QUORUM/atomic/partition-25`: 1022–1055 ms for real, 955–1031 ms re-simulated as it happened), but the checker counts a consumer\'s back-to-back empty pops as one wait, so a blocked pop that follows one or two empty 100 ms polls crosses B, and one that follows a pop that delivered does not. The consumers\' cycle runs on loopback round trips of about 1 ms for real and on the simulated network\'s 5 ms mean per hop, so the same schedule puts an empty poll before the blocked pop on one side and a delivering pop on the other: that seed, run 4 times for real at a 1-minute load of 8–10 on 2 cores, was late in 3 (up to 368–690 ms beyond B) and re-simulated never; seed 9 was late for real (220 ms beyond B, a both-ways partition) and not simulated; seeds 0, 2, 19 and 20 held on both sides. The real twin\'s liveness also started 2–48 ms after the safety phase in these runs (its wait polls every 20 ms), so a partition healed there lasts that much longer than re-simulated. The mechanism is the same on both sides; the rates part because waits of about 1 s fall on either side of B by chance of timing.';

/**
 * Why a fidelity row's simulated and real rates differ, where the mechanism was found (by reading
 * the real run's history and process log next to the simulated one). A row that disagrees without
 * an entry here says so in docs/FIDELITY.md: a difference nobody has explained yet.
 */
export const FIDELITY_EXPLANATIONS: Explanations = {
  'primary-replica/atomic/node-crash/full': LOADED_MACHINE,
  'primary-replica/atomic+server-time+durable/node-crash/full': LOADED_MACHINE,
  'primary-replica/atomic/client-crash/full': LOADED_MACHINE,
  'dynomite/DC_SAFE_QUORUM/atomic/backend-crash/full': LOADED_MACHINE,
  'dynomite/DC_SAFE_QUORUM/atomic/node-crash/full': TWO_EMPTY_REPLICAS,
  'dynomite/DC_QUORUM/atomic/partition/full': PARTITION_AT_THE_BOUND,
  'primary-replica/legacy/eviction/full': EVICTION_REFUSES,
  'primary-replica/atomic/eviction/full': EVICTION_REFUSES,
  'primary-replica/atomic+server-time+durable/eviction/full': EVICTION_PRIORITY,
};
