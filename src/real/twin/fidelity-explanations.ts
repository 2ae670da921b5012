import type { Explanations } from './fidelity-page.js';

/**
 * Late deliveries on a loaded machine: the delivery bound is the simulated network's, the real round
 * trips waited for a CPU. Measured by re-running a row's real twin alone with its history at the
 * run's load and reading the late findings next to the bound.
 */
const LOADED_MACHINE =
  'Delivered promptly is judged against a delivery bound B taken from the configuration and the simulated network (82 ms on these primary-replica rows: a 10 ms long-poll step, a replication allowance and four simulated round trips). The real runs shared 2 cores with other work (a 1-minute load average of 12–32, 24 on average, sampled each minute of the run), so a real pop waited for a CPU between its round trips and the bound was overrun by tens of milliseconds: `dynoq sim --real --configuration primary-replica/legacy/none --seed fidelity-primary-replica/legacy/none-0` at that load had 3 late messages, its worst pop 48 ms past the 82 ms bound, every other property held; on a primary with crashes, `dynoq sim --real --configuration primary-replica/atomic/node-crash --seed fidelity-primary-replica/atomic/node-crash-9` had 3 late messages, its worst pop 127 ms past the bound 1.5 s after the crash, where the same seed simulated held (a reconnection after the crash may add to the machine\'s share there). The simulator\'s round trips take the simulated network\'s time, so it is late only where a fault makes it late. Nothing found here is the queue\'s logic: the late pops overran the bound by tens to a hundred-odd milliseconds, never by a lost message; on a machine with idle cores the real rate is expected to fall toward the simulated one (not measured here).';

/** Real Redis, put over a maxmemory below its use, evicts everything and refuses writes; the simulator evicts just enough. */
const EVICTION_REFUSES =
  'The real fault sets the zone\'s maxmemory below what its redis-server uses by the drawn share of its dataset, under an allkeys policy. On the real server that does not end with the dataset trimmed to fit: measured on redis-server 7.0.15 holding 200 queued messages (183 KB of dataset, 1.06 MB used), `CONFIG SET maxmemory` 110 KB below its use under allkeys-lru evicted every key (DBSIZE 0), yet used memory stayed above the limit (1.064 MB against 0.96 MB) and the next write, a script\'s HSET, was refused with `OOM command not allowed when used memory > \'maxmemory\'`. So in a real run every write to that zone is refused for the fault\'s duration — `dynoq sim --real --configuration primary-replica/atomic/eviction --seed fidelity-primary-replica/atomic/eviction-1` had 16 pushes ok and 72 of unknown outcome (a script refused mid-way may have written before the refusal) — while the simulator evicts only what does not fit and accepts every push (90 ok, 72 keys evicted, same seed). A push of unknown outcome is never surely free, so nothing it pushed can be late: the real twin is judged on far fewer free messages and is late less often, although it loses as much (at-least-once is broken in every run on both sides). The simulator\'s eviction is kinder to writes than the real server\'s; which one a given Redis shows depends on how much of its memory is not dataset.';

/**
 * Why a fidelity row's simulated and real rates differ, where the mechanism was found (by reading
 * the real run's history and process log next to the simulated one). A row that disagrees without
 * an entry here says so in docs/FIDELITY.md: a difference nobody has explained yet.
 */
export const FIDELITY_EXPLANATIONS: Explanations = {
  'primary-replica/legacy/none': LOADED_MACHINE,
  'primary-replica/atomic/node-crash': LOADED_MACHINE,
  'primary-replica/atomic+server-time+durable/node-crash': LOADED_MACHINE,
  'primary-replica/atomic/client-crash': LOADED_MACHINE,
  'primary-replica/legacy/memory-pressure': LOADED_MACHINE,
  'dynomite/DC_SAFE_QUORUM/atomic/backend-crash': LOADED_MACHINE,
  'primary-replica/legacy/eviction': EVICTION_REFUSES,
  'primary-replica/atomic/eviction': EVICTION_REFUSES,
};
