/** A zod issue as a reader wants it: the field's dotted path, then what was wrong with it. */
export interface IssueLike {
  readonly path: readonly PropertyKey[];
  readonly message: string;
}

/** One line per issue, `field.path: message` (`whole` names the top level, which has no path). */
export function issueLines(issues: readonly IssueLike[], whole = '(top level)'): string[] {
  return issues.map((i) => `${i.path.map(String).join('.') || whole}: ${i.message}`);
}
