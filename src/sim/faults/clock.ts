import * as z from 'zod';
import type { SkewedClock } from '../kernel/actor-time.js';
import { at, between, target } from '../settings/atoms.js';
import { faultFamily, type FaultWorld } from './fault-package.js';

const clockSkew = z
  .object({ at, kind: z.literal('clock-skew').describe('the fault: clock-skew'), target: target.describe('a client or a node whose clock is set off true time'), offsetMs: z.number().int().describe('its offset from true time (ms)') })
  .strict();
const clockJump = z
  .object({ at, kind: z.literal('clock-jump').describe('the fault: clock-jump'), target: target.describe('a client or a node whose clock jumps'), deltaMs: z.number().int().describe('the jump (ms), added to its offset') })
  .strict();
const clockSchemas = [clockSkew, clockJump] as const;

function clockOf(world: FaultWorld, name: string): SkewedClock | undefined {
  return world.actor(name)?.clock ?? world.topology.nodes.find((n) => n.name === name)?.clock;
}

/**
 * Clock skew and jumps of a client or a node. A clock matters only where it is read for a deadline:
 * client clocks in client-time mode, node clocks (Redis TIME) in server-time mode, so faults are
 * drawn only there; the exposure counts the reads made while the clock was off.
 */
export const clock = faultFamily<'clock', typeof clockSchemas>({
  family: 'clock',
  description: 'a clock is skewed or jumps (a client clock under client time, a node clock under server time)',
  schemas: clockSchemas,
  apply(world, f, exposure) {
    const c = clockOf(world, f.target);
    if (!c) return;
    const before = c.readsWhileSkewed;
    if (f.kind === 'clock-skew') c.offset = f.offsetMs;
    else c.offset += f.deltaMs;
    exposure.atEnd(() => exposure.add('clock reads while off', c.readsWhileSkewed - before));
  },
  healAll(world) {
    for (const a of world.actors()) a.clock.offset = 0;
    for (const n of world.topology.nodes) n.clock.offset = 0;
  },
  applicable: () => true,
  generate(rng, ctx) {
    const targets = ctx.config.queue.serverTime ? ctx.nodes : ctx.consumers;
    if (targets.length === 0) return [];
    const lease = ctx.config.queue.unackTimeoutMs;
    const sign = rng.chance(0.5) ? 1 : -1;
    const t = rng.pick(targets);
    return rng.chance(0.5)
      ? [{ at: ctx.at, kind: 'clock-skew', target: t, offsetMs: sign * between(rng, 0.5 * lease, 3 * lease) }]
      : [{ at: ctx.at, kind: 'clock-jump', target: t, deltaMs: sign * between(rng, 0.5 * lease, 5 * lease) }];
  },
  targets: (f) => ({ clocks: [f.target] }),
  band(f, t, ctx) {
    if (f.kind === 'clock-skew') {
      return { kind: f.kind, lane: f.target, from: t, to: Math.max(t + ctx.instant, ctx.livenessStart), label: `clock ${f.offsetMs >= 0 ? '+' : ''}${f.offsetMs} ms` };
    }
    return { kind: f.kind, lane: f.target, from: t, to: t + ctx.instant, label: `clock jump ${f.deltaMs >= 0 ? '+' : ''}${f.deltaMs} ms` };
  },
  exposureNames: ['clock reads while off'],
  causeDetail: (f) => ` of ${/^(node|primary|replica)-/.test(f.target) ? 'a node' : 'a client'}`,
  advice: {
    deliveredPromptly: 'a consumer whose clock runs behind asks only for messages due by its own clock, so due messages wait while it polls: use serverTime: true.',
    priorityOrder: 'consumers whose clocks differ disagree on what is due, so a less urgent message one of them thinks due is taken before a more urgent one it does not: use serverTime: true.',
    noDoublePop: 'a reaper whose clock runs ahead takes leases back early: use serverTime: true (deadlines from the store\'s clock).',
    unackRecovery: 'a clock that runs behind re-queues expired leases late: use serverTime: true.',
    onTime: 'a consumer whose clock runs ahead takes delayed messages early: use serverTime: true.',
  },
  bandColour: '#986f0b',
  docsNote: "clients and nodes",
});
