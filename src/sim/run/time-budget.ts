/**
 * The wall-clock budget of a command (explore --time) ran out while a simulation was running: the run
 * was stopped between two events and has no verdict. Outside the simulation's determinism: it never
 * changes the verdict of a run that finished.
 */
export class TimeBudgetReachedError extends Error {
  constructor() {
    super('time budget reached: a simulation was stopped before its end');
    this.name = 'TimeBudgetReachedError';
  }
}
