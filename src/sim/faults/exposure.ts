/**
 * What one applied fault changed (docs/CHECKER.md §5): counts by what was touched ("leases held", "requests
 * refused", "promotions"), and the messages it touched where it can name them. A fault that changed
 * nothing did not strike, and a verdict about it is no evidence.
 */
export class Exposure {
  readonly counts: Record<string, number> = {};
  readonly ids = new Set<string>();
  private readonly finishers: (() => void)[] = [];

  get struck(): boolean {
    return Object.keys(this.counts).length > 0;
  }

  add(what: string, n = 1): void {
    if (n > 0) this.counts[what] = (this.counts[what] ?? 0) + n;
  }

  touch(ids: Iterable<string>): void {
    for (const id of ids) this.ids.add(id);
  }

  /** Work to do when the run ends (a counter read, a listener removed). */
  atEnd(fn: () => void): void {
    this.finishers.push(fn);
  }

  finish(): void {
    for (const fn of this.finishers.splice(0)) fn();
  }

  toJSON(): { struck: boolean; counts: Record<string, number>; ids: string[] } {
    return { struck: this.struck, counts: this.counts, ids: [...this.ids].sort() };
  }

}

/** "3 leases held, 1 calls in flight", or "changed nothing". */
export function describeExposure(counts: Readonly<Record<string, number>>): string {
  const parts = Object.entries(counts).map(([k, n]) => `${n} ${k}`);
  return parts.length > 0 ? parts.join(', ') : 'changed nothing';
}
