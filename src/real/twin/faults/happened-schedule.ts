import type { Fault } from '../../../sim/run/config.js';

/**
 * The schedule as it really happened: each fault that struck, at the time it took effect (a crash when
 * the process was killed, a restart when the process answered again), a partition or a pause with the
 * duration it really lasted. Re-simulated, it compares the simulator with the run seed by seed.
 */
export class HappenedSchedule {
  private readonly faults: Fault[] = [];

  /** A fault struck now (ms since the start); returns a setter for its real duration once it healed. */
  struck(fault: Fault, at: number): (durationMs: number) => void {
    const index = this.faults.push({ ...fault, at: Math.round(at) }) - 1;
    return (durationMs) => {
      const f = this.faults[index]!;
      if ('durationMs' in f) this.faults[index] = { ...f, durationMs: Math.max(1, Math.round(durationMs)) };
    };
  }

  /** The faults in the order they took effect. */
  list(): Fault[] {
    return [...this.faults].sort((a, b) => a.at - b.at);
  }
}
