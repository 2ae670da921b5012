import * as z from 'zod';
import { issueLines } from '../../runtime/zod-issues.js';
import { SimConfigError } from '../settings/sim-config-error.js';
import { faultSchema } from '../faults/index.js';
import { settingsFields } from '../settings/settings.js';

export { faultSchema, type Fault } from '../faults/index.js';

/** A whole configuration: the settings with the fault schedule among them. */
export const simConfigSchema = z
  .object({
    seed: settingsFields.seed,
    topology: settingsFields.topology,
    queue: settingsFields.queue,
    network: settingsFields.network,
    workload: settingsFields.workload,
    faults: z.array(faultSchema).default([]).describe('faults scheduled in the safety phase, each naming its targets (zones a…, actors producer-i / consumer-i, nodes node-<zone> or primary-<zone> / replica-<zone>) (default none)'),
    phases: settingsFields.phases,
    checker: settingsFields.checker,
    scripts: settingsFields.scripts,
    keepTrace: settingsFields.keepTrace,
  })
  .strict()
  .refine((c) => c.topology.kind !== 'dynomite' || (!c.queue.serverTime && !c.queue.durable), {
    message: 'serverTime and durable are refused on Dynomite (each replica re-runs scripts with its own clock; there is no WAIT): use topology primary-replica',
    path: ['queue'],
  })
  .refine((c) => c.queue.mode === 'atomic' || (!c.queue.serverTime && !c.queue.durable), {
    message: 'serverTime and durable are atomic-mode options',
    path: ['queue'],
  });

export type SimConfigInput = z.input<typeof simConfigSchema>;
export type SimConfig = z.output<typeof simConfigSchema>;

/** Parses a configuration; a bad field is a SimConfigError naming it, never a raw ZodError. */
export function parseSimConfig(input: unknown): SimConfig {
  const parsed = simConfigSchema.safeParse(input);
  if (!parsed.success) throw new SimConfigError(issueLines(parsed.error.issues));
  return parsed.data;
}
