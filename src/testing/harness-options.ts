import { PROPERTY_NAMES, type PropertyName } from '../model/properties.js';
import type { QueueMode } from '../queue/dyno-queue.js';
import { InvalidArgumentError } from '../queue/errors.js';
import { FAULT_FAMILY_NAMES } from '../sim/faults/index.js';
import type { FaultFamily } from '../sim/faults/index.js';

/**
 * The harness functions' own options, checked before anything runs: a mistake in them is an
 * InvalidArgumentError, never a HarnessFailure (which must mean the thing under test disagreed),
 * and a count of 0 would resolve having checked nothing.
 */

export function positiveCount(name: string, value: unknown): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1) throw new InvalidArgumentError(name, `must be a whole number ≥ 1, got ${JSON.stringify(value)}`);
  return value;
}

function nonNegativeCount(name: string, value: unknown): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0) throw new InvalidArgumentError(name, `must be a whole number ≥ 0, got ${JSON.stringify(value)}`);
  return value;
}

export function optionalInteger(name: string, value: unknown): void {
  if (value !== undefined && (typeof value !== 'number' || !Number.isInteger(value))) throw new InvalidArgumentError(name, `must be an integer, got ${JSON.stringify(value)}`);
}

export function optionalString(name: string, value: unknown): void {
  if (value !== undefined && typeof value !== 'string') throw new InvalidArgumentError(name, `must be a string, got ${JSON.stringify(value)}`);
}

/** A list drawn from `allowed`, at least one entry, none repeated. */
function subsetOf<T extends string>(name: string, value: unknown, allowed: readonly T[]): T[] {
  if (!Array.isArray(value) || value.length === 0) throw new InvalidArgumentError(name, `must be a non-empty list of ${allowed.join(', ')}`);
  const bad = value.filter((v) => !allowed.includes(v as T));
  if (bad.length > 0) throw new InvalidArgumentError(name, `${bad.map((b) => JSON.stringify(b)).join(', ')} is not one of ${allowed.join(', ')}`);
  return value as T[];
}

const QUEUE_MODES: readonly QueueMode[] = ['atomic', 'legacy'];

export function checkModes(value: unknown): QueueMode[] {
  return subsetOf('modes', value, QUEUE_MODES);
}

export function checkRequired(value: unknown): PropertyName[] {
  return subsetOf('require', value, PROPERTY_NAMES);
}

/** A seed count (≥ 1) or a non-empty list of non-empty seeds. */
export function checkSeeds(value: unknown): number | string[] {
  if (typeof value === 'number') return positiveCount('seeds', value);
  if (!Array.isArray(value) || value.length === 0) throw new InvalidArgumentError('seeds', 'must be a count ≥ 1 or a non-empty list of seeds');
  if (value.some((s) => typeof s !== 'string' || s === '')) throw new InvalidArgumentError('seeds', 'every seed must be a non-empty string');
  return value as string[];
}

/** The fault families random faults are drawn from (simulate's `faultFamilies`, explore's `--faults`). */
export function checkFaultFamilies(value: unknown): FaultFamily[] {
  return subsetOf<FaultFamily>('faultFamilies', value, FAULT_FAMILY_NAMES);
}

export function checkRandomFaults(value: unknown): number {
  return nonNegativeCount('randomFaults', value);
}
