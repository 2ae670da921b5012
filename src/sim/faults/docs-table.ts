import { FAULT_FAMILIES, FAULT_FAMILY_NAMES, kindsOf } from './index.js';

/** Fields that name a fault's targets (the table lists the other fields of each kind). */
const TARGET_FIELDS = new Set(['at', 'kind', 'zone', 'actor', 'target', 'from', 'to']);
const TOPOLOGY_NAMES = { dynomite: 'Dynomite', 'primary-replica': 'primary-replica' } as const;

/** docs/SCENARIOS.md's table of fault families, from each family's own file. */
export function faultFamilyTable(): string {
  const rows = FAULT_FAMILY_NAMES.map((family) => {
    const p = FAULT_FAMILIES[family];
    const kinds = kindsOf(family).map((kind, i) => {
      const fields = Object.keys(p.schemas[i]!.shape).filter((f) => !TARGET_FIELDS.has(f));
      return `\`${kind}\`${fields.length > 0 ? ` (${fields.map((f) => `\`${f}\``).join(', ')})` : ''}`;
    });
    const notes = [p.requiresTopology ? `${TOPOLOGY_NAMES[p.requiresTopology]} only` : null, p.docsNote ?? null].filter((n) => n !== null);
    return `| \`${family}\` | ${kinds.join(', ')} |${notes.length > 0 ? ` ${notes.join('; ')} ` : ' '}|`;
  });
  return ['| family | kinds | notes |', '|---|---|---|', ...rows].join('\n');
}
