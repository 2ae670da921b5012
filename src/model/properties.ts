/**
 * The one table of what the checker decides (SPEC §6.3): every property, and every kind of finding
 * with the property it breaks. Every other list — CLI output, JSON, the HTML report, the guarantees
 * table, scenario files' `expect` — is derived from these two records, so a new kind or property
 * cannot be forgotten: the compiler demands an entry here and everything else follows.
 */
export const PROPERTIES = {
  atLeastOnce: { label: 'at-least-once', means: 'every acknowledged push is processed (acked) or removed by the end' },
  unackRecovery: { label: 'un-ack recovery', means: 'an unacknowledged delivery is re-delivered within the stated bound' },
  noDoublePop: { label: 'no double pop', means: 'never delivered to a consumer while another holder holds it' },
  acksAreFinal: { label: 'acks are final', means: 'never delivered again after an ack returned ok, unless pushed again' },
  onTime: { label: 'on time', means: 'never delivered before its due time' },
  noPhantoms: { label: 'no phantoms', means: 'never delivers a message nobody pushed' },
} as const satisfies Record<string, { readonly label: string; readonly means: string }>;

export type PropertyName = keyof typeof PROPERTIES;
export const PROPERTY_NAMES = Object.keys(PROPERTIES) as [PropertyName, ...PropertyName[]];

interface KindDefinition {
  readonly label: string;
  /** The property this kind breaks; null for kinds that are reported but allowed. */
  readonly breaks: PropertyName | null;
}

export const VIOLATION_KINDS = {
  'lost-never-delivered': { label: 'lost (never delivered)', breaks: 'atLeastOnce' },
  'lost-after-delivery': { label: 'lost (delivered, then dropped)', breaks: 'atLeastOnce' },
  'slow-recovery': { label: 'slow recovery', breaks: 'unackRecovery' },
  'double-pop': { label: 'double pop', breaks: 'noDoublePop' },
  resurrection: { label: 'resurrection', breaks: 'acksAreFinal' },
  early: { label: 'early', breaks: 'onTime' },
  unexpected: { label: 'unexpected', breaks: 'noPhantoms' },
  duplicate: { label: 'duplicate (allowed by at-least-once)', breaks: null },
} as const satisfies Record<string, KindDefinition>;

export type ViolationKind = keyof typeof VIOLATION_KINDS;
export const VIOLATION_KIND_NAMES = Object.keys(VIOLATION_KINDS) as [ViolationKind, ...ViolationKind[]];

/** Kinds that break some property (every kind but the allowed ones). */
export const FAILURE_KINDS: readonly ViolationKind[] = VIOLATION_KIND_NAMES.filter((k) => VIOLATION_KINDS[k].breaks !== null);

/** The kinds that break one property. */
export function kindsBreaking(property: PropertyName): ViolationKind[] {
  return VIOLATION_KIND_NAMES.filter((k) => VIOLATION_KINDS[k].breaks === property);
}

/** A record with one entry per kind, all zero. */
export function zeroPerKind(): Record<ViolationKind, number> {
  return Object.fromEntries(VIOLATION_KIND_NAMES.map((k) => [k, 0])) as Record<ViolationKind, number>;
}

/** Which properties held, given how many findings of each kind a run had. */
export function propertiesFrom(counts: Readonly<Record<ViolationKind, number>>): Record<PropertyName, boolean> {
  return Object.fromEntries(PROPERTY_NAMES.map((p) => [p, kindsBreaking(p).every((k) => counts[k] === 0)])) as Record<PropertyName, boolean>;
}
