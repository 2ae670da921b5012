import { describe, expect, it } from 'vitest';
import type { HistoryOp } from '../../src/model/history.js';
import { classifyFindings } from '../../src/sim/campaign/mechanisms.js';

/** How a no-fault finding is named from the message's own history. */
describe('the cause of a finding no fault explains', () => {
  const deliver: HistoryOp = { type: 'deliver', process: 'c1', id: 'm1', invokedAt: 10, completedAt: 12, outcome: 'ok', leaseUntil: 1_012 } as HistoryOp;
  const ack = (outcome: 'ok' | 'fail' | 'unknown'): HistoryOp => ({ type: 'ack', process: 'c1', id: 'm1', invokedAt: 20, completedAt: 22, outcome }) as HistoryOp;
  const resurrection = [{ kind: 'resurrection' as const, id: 'm1', t: 30, processes: ['c1'], detail: '' }];

  it.each([
    ['fail', 'no fault: an ack was refused or unanswered'],
    // On Dynomite a refusal is a vote another replica may have lost: recorded unknown, named the same.
    ['unknown', 'no fault: an ack was refused or unanswered'],
    ['ok', 'no fault: lease ran out while held'],
  ] as const)('an ack that came back %s', (outcome, cause) => {
    expect(classifyFindings(resurrection, [deliver, ack(outcome)], [])).toEqual([{ kind: 'resurrection', cause }]);
  });
});
