import type { Clock, Timers } from '../queue/time.js';

/** The process's real clock and timers: what a deployed queue uses. Never used on simulated paths. */
export const systemClock: Clock = { now: () => Date.now() };

export const systemTimers: Timers = {
  setTimeout: (callback, delayMs) => setTimeout(callback, delayMs),
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
};
