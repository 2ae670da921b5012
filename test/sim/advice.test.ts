import { describe, expect, it } from 'vitest';
import { adviceForMechanism } from '../../src/sim/campaign/advice.js';
import { FAULT_FAMILIES, FAULT_FAMILY_NAMES } from '../../src/sim/faults/index.js';

/** The advice the guarantees page gives for a mechanism is its own family's, for the property it breaks. */
describe('advice for a mechanism', () => {
  it('comes from the family named first in the cause, by whole name: process-crash-failover is not process-crash', () => {
    expect(adviceForMechanism({ kind: 'double-pop', cause: 'process-crash-failover (writes lost)' })).toBe(FAULT_FAMILIES['process-crash-failover'].advice?.noDoublePop);
    expect(adviceForMechanism({ kind: 'double-pop', cause: 'process-crash (restarted empty)' })).toBe(FAULT_FAMILIES['process-crash'].advice?.noDoublePop);
    expect(adviceForMechanism({ kind: 'double-pop', cause: 'process-crash-failover' })).toBe(FAULT_FAMILIES['process-crash-failover'].advice?.noDoublePop);
  });

  it('every family with advice for a property gives it for a mechanism it alone causes', () => {
    for (const family of FAULT_FAMILY_NAMES) {
      const advice = FAULT_FAMILIES[family].advice;
      if (advice?.noDoublePop) expect(adviceForMechanism({ kind: 'double-pop', cause: `${family} (x)` }), family).toBe(advice.noDoublePop);
    }
  });

  it('a node\'s clock is told apart from the clock family, and no fault has its own advice', () => {
    expect(adviceForMechanism({ kind: 'double-pop', cause: 'clock of a node (clock reads while off)' })).toMatch(/node clocks in sync/);
    expect(adviceForMechanism({ kind: 'lost-never-delivered', cause: 'no fault' })).toMatch(/bug in the mode/);
    expect(adviceForMechanism({ kind: 'lost-after-delivery', cause: 'no fault: an ack was refused or unanswered' })).toMatch(/bug in the mode/);
  });
});
