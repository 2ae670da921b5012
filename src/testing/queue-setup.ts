import { FakeTime } from '../testing/manual-time.js';
import { InvalidArgumentError } from '../queue/errors.js';
import { parseQueueOptions, type QueueOptionsInput } from '../queue/options.js';
import type { Store } from '../store/store.js';

/**
 * Your queue's options, as you give them to `createQueue`, for `checkAgainstModel({ queue })` and
 * `simulate({ queue })`. They are validated by the queue's own schema; each option is then either
 * honoured by the harness or refused with an InvalidArgumentError naming it (HARNESS_SUPPORT).
 */
export type HarnessQueueOptions = Partial<QueueOptionsInput>;

type Harness = 'checkAgainstModel' | 'simulate';
/** `true`: honoured; a string: why the harness refuses it. */
type Support = Record<Harness, true | string>;

const OWN_CONNECTION = 'the harness connects the queue itself (give your Redis as `redis`)';
const SIM_CONNECTION = 'each simulated client gets its own simulated connection';

/**
 * What each harness does with each queue option. A Record over every option the queue accepts:
 * an option added to the queue does not compile until it is classified here.
 */
export const HARNESS_SUPPORT: Record<keyof QueueOptionsInput, Support> = {
  name: { checkAgainstModel: true, simulate: true },
  prefix: { checkAgainstModel: true, simulate: true },
  hashTag: { checkAgainstModel: true, simulate: true },
  mode: { checkAgainstModel: true, simulate: true },
  unackTimeout: { checkAgainstModel: true, simulate: true },
  unackInterval: { checkAgainstModel: true, simulate: true },
  serverTime: { checkAgainstModel: true, simulate: true },
  durable: { checkAgainstModel: true, simulate: true },
  sharding: { checkAgainstModel: 'the check runs one shard: sharding has nothing to choose', simulate: true },
  pollInterval: { checkAgainstModel: true, simulate: true },
  reaperBatch: { checkAgainstModel: true, simulate: 'the simulator reaps in the default batches' },
  maxPayloadBytes: { checkAgainstModel: true, simulate: 'the simulated workload sends short payloads' },
  settleMs: { checkAgainstModel: true, simulate: 'the simulated queue takes the default settle time of its topology' },
  promoteInReaper: { checkAgainstModel: 'the check does not model promotion by the reaper', simulate: 'the simulated reaper does not promote' },
  singleRingTopology: { checkAgainstModel: 'the check does not model the single-ring reaper', simulate: 'the simulated legacy reaper is the multi-ring one' },
  shards: { checkAgainstModel: 'the check runs one shard of its own', simulate: 'the simulator makes one shard per zone (config.topology.zones)' },
  quorum: { checkAgainstModel: OWN_CONNECTION, simulate: SIM_CONNECTION },
  nonQuorum: { checkAgainstModel: OWN_CONNECTION, simulate: SIM_CONNECTION },
  clock: { checkAgainstModel: 'the check drives the clock itself', simulate: 'each simulated client has its own virtual clock' },
  timers: { checkAgainstModel: 'the check drives the timers itself', simulate: 'each simulated client has its own virtual timers' },
  randomId: { checkAgainstModel: 'the check draws lease tokens as the model does', simulate: 'the simulator draws lease tokens from the seed' },
  requireLeaseToken: { checkAgainstModel: 'the model acks, releases and removes without tokens too', simulate: 'the simulated consumers always pass their tokens; the option changes only calls without one' },
  onReaperError: { checkAgainstModel: 'a reaper error fails the check', simulate: 'the simulator records reaper errors in the trace' },
};

/**
 * Validates `value` as queue options (the queue's schema; the fields the harness supplies are
 * stand-ins here) and refuses, naming it, every option `harness` cannot honour.
 */
export function parseHarnessQueueOptions(harness: Harness, value: unknown): HarnessQueueOptions {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new InvalidArgumentError('queue', 'must be an object of queue options (as given to createQueue)');
  const given = Object.entries(value).filter(([, v]) => v !== undefined).map(([k]) => k);
  const unknown = given.filter((k) => !(k in HARNESS_SUPPORT));
  if (unknown.length > 0) throw new InvalidArgumentError(`queue.${unknown[0]}`, `is not a queue option (createQueue takes ${Object.keys(HARNESS_SUPPORT).join(', ')})`);
  for (const k of given) {
    const support = HARNESS_SUPPORT[k as keyof QueueOptionsInput][harness];
    if (support !== true) throw new InvalidArgumentError(`queue.${k}`, `${harness} cannot honour it: ${support}`);
  }
  const time = new FakeTime();
  parseQueueOptions({
    name: 'harness',
    ...(value as HarnessQueueOptions),
    quorum: { runScript: () => Promise.reject(new Error('not a store')) } as unknown as Store,
    clock: time,
    timers: time,
  });
  return value as HarnessQueueOptions;
}
