/** The interleavings the racers make on purpose: users hit them, the other clients rarely or never do. */
export const RACE_NAMES = ['abortAfterLease', 'ensureFromTwoShards', 'rescheduleVsPop'] as const;
export type RaceName = (typeof RACE_NAMES)[number];

export const RACE_LABELS: Readonly<Record<RaceName, string>> = {
  abortAfterLease: 'long-poll aborted after it leased',
  ensureFromTwoShards: 'same id ensured from two shards at once',
  rescheduleVsPop: 'reschedule racing a pop of the same id',
};
