import * as z from 'zod';
import { at, between } from '../settings/atoms.js';
import { faultFamily } from './fault-package.js';

const consumerClocks = z
  .object({
    at,
    kind: z.literal('consumer-clocks').describe('the fault: consumer-clocks'),
    offsetMs: z.number().int().describe("every consumer's clock offset from true time (ms): negative runs behind"),
  })
  .strict();
const consumerClocksSchemas = [consumerClocks] as const;

const isConsumer = (name: string) => name.startsWith('consumer-');

/**
 * Every consumer's clock set off by the same amount, whatever the mode: under client time it decides
 * what a pop thinks is due (behind: due messages wait while consumers poll; ahead: delayed messages
 * leave early), under server time it should not matter at all — the twin rows that show it. The
 * exposure counts the consumers set off and the clock reads they made meanwhile.
 */
export const consumerClocksFamily = faultFamily<'consumer-clocks', typeof consumerClocksSchemas>({
  family: 'consumer-clocks',
  description: "every consumer's clock runs ahead or behind by up to 3 leases (client time and server time alike)",
  schemas: consumerClocksSchemas,
  apply(world, f, exposure) {
    const clocks = [...world.actors()].filter((a) => isConsumer(a.name)).map((a) => a.clock);
    const before = clocks.map((c) => c.readsWhileSkewed);
    for (const c of clocks) c.offset = f.offsetMs;
    exposure.add('consumer clocks set off', f.offsetMs === 0 ? 0 : clocks.length);
    exposure.atEnd(() => exposure.add('clock reads while off', clocks.reduce((n, c, i) => n + c.readsWhileSkewed - before[i]!, 0)));
  },
  healAll(world) {
    for (const a of world.actors()) if (isConsumer(a.name)) a.clock.offset = 0;
  },
  applicable: () => true,
  generate(rng, ctx) {
    const lease = ctx.config.queue.unackTimeoutMs;
    const sign = rng.chance(0.5) ? 1 : -1;
    return [{ at: ctx.at, kind: 'consumer-clocks', offsetMs: sign * between(rng, 0.5 * lease, 3 * lease) }];
  },
  targets: () => ({}),
  band(f, t, ctx) {
    return { kind: f.kind, lane: null, from: t, to: Math.max(t + ctx.instant, ctx.livenessStart), label: `consumer clocks ${f.offsetMs >= 0 ? '+' : ''}${f.offsetMs} ms` };
  },
  exposureNames: ['clock reads while off', 'consumer clocks set off'],
  advice: {
    deliveredPromptly: 'consumers whose clocks run behind ask only for messages due by their own clock, so due messages wait while they poll: use serverTime: true.',
    onTime: 'consumers whose clocks run ahead take delayed messages before they are due: use serverTime: true.',
    noDoublePop: 'reapers whose clocks run ahead take leases back early: use serverTime: true.',
    unackRecovery: 'reapers whose clocks run behind re-queue expired leases late: use serverTime: true.',
  },
  bandColour: '#c19c00',
  docsNote: "every consumer's clock off true time by the same `offsetMs`",
});
