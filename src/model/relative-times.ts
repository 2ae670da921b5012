/**
 * Rewrites the absolute times inside a sentence as "t+N ms" from `start`: every number the checker's
 * findings give as a time (after "at", "until", "by" or "since"), whatever the history's clock (epoch
 * ms, a monotonic clock from 0), and any epoch-ms timestamp (13 digits from 1…) elsewhere, such as in
 * a JSON trace. Durations ("the 82 ms bound") are left alone.
 */
export function relativeTimes(text: string, start: number): string {
  const rel = (n: string) => `t+${Math.round(Number(n) - start)} ms`;
  return text
    .replace(/\b(at|until|by|since) (-?\d+(?:\.\d+)?(?:e[+-]?\d+)?)(?![\w.])/g, (_all, word: string, n: string) => `${word} ${rel(n)}`)
    .replace(/(?<![+\w.])1\d{12}(?:\.\d+)?\b/g, rel);
}
