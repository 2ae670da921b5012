/**
 * Whether a replica changed its data running one of a client call's writes, and when: before the
 * call returned, or after (a replica the vote did not wait for). A call that returned a refusal is
 * a definite `fail` only if no replica ever applied it (docs/CHECKER.md §1.2).
 */
export class CallEffects {
  /** Some replica changed its data running one of this call's writes. */
  applied = false;
  private returned = false;
  private late: (() => void) | null = null;

  /** A replica changed its data running one of this call's writes. */
  note(): void {
    if (this.applied) return;
    this.applied = true;
    if (this.returned) this.late?.();
  }

  /** The call returned; `late` runs if a replica first applies one of its writes after this. */
  returnedThen(late: () => void): void {
    this.returned = true;
    this.late = late;
  }
}
