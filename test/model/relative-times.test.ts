import { describe, expect, it } from 'vitest';
import { formatJudgement } from '../../src/cli/commands/judge.js';
import { judgeHistory } from '../../src/model/judge.js';
import { relativeTimes } from '../../src/model/relative-times.js';

describe('every time in a finding is t+… ms, whatever the history clock', () => {
  it('times after at / until / by / since, on any clock; durations stay as they are', () => {
    expect(relativeTimes('delivered to c2 at 5400.5 while c1 held it (popped at 5012, held until 6012)', 5_000)).toBe(
      'delivered to c2 at t+401 ms while c1 held it (popped at t+12 ms, held until t+1012 ms)',
    );
    expect(relativeTimes('free and due on shard a while 2 pop(s) waited past the 82 ms bound (up to 12 ms beyond it)', 0)).toBe(
      'free and due on shard a while 2 pop(s) waited past the 82 ms bound (up to 12 ms beyond it)',
    );
    expect(relativeTimes('{"t":1700000000123,"op":"pop"}', 1_700_000_000_000)).toBe('{"t":t+123 ms,"op":"pop"}');
    expect(relativeTimes('pushed at t+5 ms', 0)).toBe('pushed at t+5 ms');
  });

  it('dynoq judge on a history timed by a monotonic clock (small numbers) prints no raw time', () => {
    const lines = [
      { type: 'push', process: 'p', id: 'm', invokedAt: 292, completedAt: 293, outcome: 'ok', delayMs: 0 },
      { type: 'deliver', process: 'c1', id: 'm', invokedAt: 300, completedAt: 301, outcome: 'ok', leaseUntil: 1_300 },
      { type: 'deliver', process: 'c2', id: 'm', invokedAt: 400, completedAt: 401, outcome: 'ok', leaseUntil: 1_400 },
      { type: 'ack', process: 'c2', id: 'm', invokedAt: 410, completedAt: 411, outcome: 'ok' },
    ];
    const { report, history } = judgeHistory(lines.map((l) => JSON.stringify(l)).join('\n'));
    const text = formatJudgement(report, 'h.jsonl', history[0]!.invokedAt);
    const finding = text.split('\n').find((l) => l.includes('- m at'))!;
    expect(finding).toBe('    - m at t+109 ms [c1, c2]: delivered to c2 at t+109 ms while c1 held it (popped at t+9 ms, held until t+1008 ms)');
  });
});
