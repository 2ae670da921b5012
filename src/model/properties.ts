import { acksAreFinal } from './properties/acks-are-final.js';
import { atLeastOnce } from './properties/at-least-once.js';
import { deliveredPromptly } from './properties/delivered-promptly.js';
import { duplicate } from './properties/duplicate.js';
import type { AllowedFinding, PropertyModule } from './properties/judging.js';
import { keepsConsuming } from './properties/keeps-consuming.js';
import { noDoublePop } from './properties/no-double-pop.js';
import { noPhantoms } from './properties/no-phantoms.js';
import { onTime } from './properties/on-time.js';
import { priorityOrder } from './properties/priority-order.js';
import { twinsMatchLua } from './properties/twins-match-lua.js';
import { unackRecovery } from './properties/unack-recovery.js';

/**
 * The one table of what the checker decides (docs/CHECKER.md §3): every property, one module each in
 * src/model/properties/ (its label, meaning, exposure, kinds of finding with their severity, and its
 * judges), in the order every output lists them. Every other list — the checker's judges, CLI output,
 * JSON, the HTML report, the guarantees table, scenario files' `expect`, docs/CHECKER.md's table — is
 * derived from this line, so a new property is its module and its place here.
 */
export const PROPERTY_TABLE = [atLeastOnce, unackRecovery, noDoublePop, acksAreFinal, onTime, noPhantoms, priorityOrder, deliveredPromptly, twinsMatchLua, keepsConsuming] as const;

/** Findings that are reported but break no property (docs/CHECKER.md §2.6). */
export const ALLOWED_FINDINGS = [duplicate] as const;

type Property = (typeof PROPERTY_TABLE)[number];
export type PropertyName = Property['name'];
/** Every property by name: label, meaning, exposure, kinds and judges. */
export const PROPERTIES = Object.fromEntries(PROPERTY_TABLE.map((p) => [p.name, p])) as { readonly [P in Property as P['name']]: P };
export const PROPERTY_NAMES = PROPERTY_TABLE.map((p) => p.name) as [PropertyName, ...PropertyName[]];

/** Properties a gate (explore, simulate) keeps whatever its `require` says: every other verdict of a simulation rests on them. */
export const ALWAYS_REQUIRED: readonly PropertyName[] = ['twinsMatchLua'];

type KindsOf<T> = T extends { readonly kinds: infer K } ? keyof K & string : never;
export type ViolationKind = KindsOf<Property> | KindsOf<(typeof ALLOWED_FINDINGS)[number]>;

interface KindDefinition {
  readonly label: string;
  /** The property this kind breaks; null for kinds that are reported but allowed. */
  readonly breaks: PropertyName | null;
  /** Severity: 1 is the worst. Every summary, title and report names and lists findings worst first (WORST_FIRST). */
  readonly rank: number;
}

/**
 * Every kind of finding, worst first (by rank; each module's kinds carry theirs, with why each sits
 * where it does: what the user's work suffers). docs/CHECKER.md §4 lists them, generated from the modules.
 */
export const VIOLATION_KINDS = Object.fromEntries(
  [
    ...PROPERTY_TABLE.flatMap((p) => Object.entries(p.kinds as PropertyModule['kinds']).map(([kind, k]) => [kind, { label: k.label, breaks: p.name, rank: k.rank }] as const)),
    ...ALLOWED_FINDINGS.flatMap((a) => Object.entries(a.kinds as AllowedFinding['kinds']).map(([kind, k]) => [kind, { label: k.label, breaks: null, rank: k.rank }] as const)),
  ].sort((a, b) => a[1].rank - b[1].rank),
) as { readonly [K in ViolationKind]: KindDefinition };

export const VIOLATION_KIND_NAMES = Object.keys(VIOLATION_KINDS) as [ViolationKind, ...ViolationKind[]];

/** Every kind, worst first (by rank). */
export const WORST_FIRST: readonly ViolationKind[] = [...VIOLATION_KIND_NAMES].sort((a, b) => VIOLATION_KINDS[a].rank - VIOLATION_KINDS[b].rank);

/** Every property, worst first: by the worst kind that breaks it. */
export const PROPERTIES_WORST_FIRST: readonly PropertyName[] = [...PROPERTY_NAMES].sort(
  (a, b) => Math.min(...kindsBreaking(a).map((k) => VIOLATION_KINDS[k].rank)) - Math.min(...kindsBreaking(b).map((k) => VIOLATION_KINDS[k].rank)),
);

/** Orders findings worst first, then by time, then by id. */
export function worstFirst(a: { readonly kind: ViolationKind; readonly t: number; readonly id: string }, b: { readonly kind: ViolationKind; readonly t: number; readonly id: string }): number {
  return VIOLATION_KINDS[a.kind].rank - VIOLATION_KINDS[b.kind].rank || a.t - b.t || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

/** The worst failing finding (the earliest of its kind), among those breaking one of `properties` when given. */
export function worstFinding<V extends { readonly kind: ViolationKind; readonly t: number; readonly id: string }>(violations: readonly V[], properties?: readonly PropertyName[]): V | undefined {
  let worst: V | undefined;
  for (const v of violations) {
    const breaks = VIOLATION_KINDS[v.kind].breaks;
    if (breaks === null || (properties && !properties.includes(breaks))) continue;
    if (!worst || worstFirst(v, worst) < 0) worst = v;
  }
  return worst;
}

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

/** A record with one entry per property, all false. */
export function nonePerProperty(): Record<PropertyName, boolean> {
  return Object.fromEntries(PROPERTY_NAMES.map((p) => [p, false])) as Record<PropertyName, boolean>;
}
