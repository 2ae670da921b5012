/** The interleavings the racers make on purpose: users hit them, the other clients rarely or never do. */
export const RACE_NAMES = [
  'abortAfterLease',
  'consumeAbortedAfterLease',
  'ensureFromTwoShards',
  'rescheduleVsPop',
  'extendVsPop',
  'errorMidConsumeBatch',
] as const;
export type RaceName = (typeof RACE_NAMES)[number];

export const RACE_LABELS: Readonly<Record<RaceName, string>> = {
  abortAfterLease: 'long-poll aborted after it leased',
  consumeAbortedAfterLease: 'consume() aborted after it leased',
  ensureFromTwoShards: 'same id ensured from two shards at once',
  rescheduleVsPop: 'reschedule racing a pop of the same id',
  extendVsPop: 'setUnackTimeout racing a pop of the same id',
  errorMidConsumeBatch: 'store error in the middle of a consume() batch',
};

/** The races the two racers take turns at; the connection-reset race has a racer of its own. */
export const TURN_RACES: readonly RaceName[] = RACE_NAMES.filter((race) => race !== 'errorMidConsumeBatch');
