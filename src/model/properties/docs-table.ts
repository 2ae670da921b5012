import { ALLOWED_FINDINGS, PROPERTIES, PROPERTIES_WORST_FIRST, PROPERTY_TABLE } from '../properties.js';
import type { AllowedFinding, KindDefinition, PropertyModule } from './judging.js';

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

/** docs/CHECKER.md §4's list: every kind of finding worst first, each with why it sits there, then the properties in that order. */
export function severityList(): string {
  const kinds: KindDefinition[] = [
    ...(PROPERTY_TABLE as readonly PropertyModule[]).flatMap((p) => Object.values(p.kinds)),
    ...(ALLOWED_FINDINGS as readonly AllowedFinding[]).flatMap((a) => Object.values(a.kinds)),
  ].sort((a, b) => a.rank - b.rank);
  const properties = PROPERTIES_WORST_FIRST.map((p) => PROPERTIES[p].label).join(', ');
  return [
    ...kinds.map((k, i) => `${i + 1}. **${k.label}** — ${k.why}`),
    '',
    `Properties are ordered by the worst kind that breaks them (${properties}); the verdict line keeps the table's order.`,
  ].join('\n');
}

/** docs/CHECKER.md §5's list: per property, what a history must contain for it to have been exercised. */
export function exposureList(): string {
  return (PROPERTY_TABLE as readonly PropertyModule[]).map((p) => `- **${p.label}**: ${p.exercisedWhen}.`).join('\n');
}
