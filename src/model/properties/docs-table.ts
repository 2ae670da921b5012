import { PROPERTY_TABLE } from '../properties.js';
import type { PropertyModule } from './judging.js';

/**
 * docs/CHECKER.md §3's table, from each property's own module: a row per property for the kinds any
 * history can show, then a row per property for the kinds only a simulation can find.
 */
export function propertyTable(): string {
  const modules = PROPERTY_TABLE as readonly PropertyModule[];
  const rows = [
    ...modules.flatMap((p) => (p.brokenBy ? [`| ${p.label} | ${p.brokenBy} |`] : [])),
    ...modules.flatMap((p) => (p.brokenInSimulationsBy ? [`| ${p.label} (simulations only) | ${p.brokenInSimulationsBy} |`] : [])),
  ];
  return ['| property | broken by |', '|---|---|', ...rows].join('\n');
}
