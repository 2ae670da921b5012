import * as z from 'zod';
import { issueLines } from '../../runtime/zod-issues.js';
import { SimConfigError } from '../settings/sim-config-error.js';
import { fileFaultSchema, faultForFile } from './fault-fields.js';
import { settingsFields } from '../settings/settings.js';
import { SCENARIO_LIMITS } from '../settings/atoms.js';

import type { Fault } from '../faults/index.js';

export { faultSchema, type Fault } from '../faults/index.js';

/** A whole configuration: the settings with the fault schedule among them. */
export const simConfigSchema = z
  .object({
    seed: settingsFields.seed,
    topology: settingsFields.topology,
    queue: settingsFields.queue,
    network: settingsFields.network,
    workload: settingsFields.workload,
    faults: z.array(fileFaultSchema).max(SCENARIO_LIMITS.faults).default([]).describe('faults scheduled in the safety phase, each naming what it strikes (a zone a… as `target`, its deprecated name `zone` still read; actors producer-i / consumer-i; nodes node-<zone> or primary-<zone> / replica-<zone>) (default none)'),
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

/**
 * A drawn fault schedule in the form a parsed configuration holds (each fault's fields in its schema's
 * order, defaults filled): what a configuration parsed without its schedule gets once faults are drawn.
 */
export function parseFaults(faults: readonly unknown[]): Fault[] {
  const parsed = simConfigSchema.shape.faults.safeParse(faults);
  if (!parsed.success) throw new SimConfigError(issueLines(parsed.error.issues));
  return parsed.data;
}

/** A configuration as a file says it (a struck zone is a fault's `target`): what scenario writers write. */
export function configForFile<C extends SimConfig>(config: C): Omit<C, 'faults'> & { faults: Record<string, unknown>[] } {
  return { ...config, faults: config.faults.map(faultForFile) };
}
