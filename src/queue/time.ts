/** Wall-clock time in milliseconds. Injected so that tests and the simulator control time. */
export interface Clock {
  now(): number;
}

export type TimerHandle = unknown;

/** Timer scheduling. Injected for the same reason as Clock. */
export interface Timers {
  setTimeout(callback: () => void, delayMs: number): TimerHandle;
  clearTimeout(handle: TimerHandle): void;
}
