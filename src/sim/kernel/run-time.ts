/** Now, in the run's time: virtual time in a simulation, the system clock in a real twin. */
export interface RunTime {
  readonly now: number;
}
