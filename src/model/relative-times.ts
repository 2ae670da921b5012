/** Rewrites absolute virtual timestamps inside a sentence as "t+N ms" from the run's start. */
export function relativeTimes(text: string, start: number): string {
  return text.replace(/\b1\d{12}(?:\.\d+)?\b/g, (n) => `t+${Math.round(Number(n) - start)} ms`);
}
