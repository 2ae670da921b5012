/**
 * The one table of what the checker decides (SPEC §6.3): every property, and every kind of finding
 * with the property it breaks. Every other list — CLI output, JSON, the HTML report, the guarantees
 * table, scenario files' `expect` — is derived from these two records, so a new kind or property
 * cannot be forgotten: the compiler demands an entry here and everything else follows.
 */
export const PROPERTIES = {
  atLeastOnce: {
    label: 'at-least-once',
    means: 'every acknowledged push is processed (acked) or removed by the end',
    exercisedWhen: 'a push returned ok',
  },
  unackRecovery: {
    label: 'un-ack recovery',
    means: 'an unacknowledged delivery is re-delivered within the stated bound',
    exercisedWhen: 'a hold ended without an ack (lease ran out, release, refused ack) early enough to be judged',
  },
  noDoublePop: {
    label: 'no double pop',
    means: 'never delivered to a consumer while another holder holds it',
    exercisedWhen: 'a lease ran out or was handed back while its holder was still in the run',
  },
  acksAreFinal: {
    label: 'acks are final',
    means: 'never delivered again after an ack or remove returned ok, unless pushed again',
    exercisedWhen: 'a message was acked or removed (ok) while the queue still had a way to deliver it (removed, delivered twice, or acked after its lease ran out)',
  },
  onTime: {
    label: 'on time',
    means: 'never delivered by the schedule before its due time (push, reschedule or release)',
    exercisedWhen: 'a message with a delay or a reschedule was delivered by the schedule',
  },
  noPhantoms: { label: 'no phantoms', means: 'never delivers a message nobody pushed', exercisedWhen: 'a message was delivered' },
  priorityOrder: {
    label: 'priority order',
    means: 'a pop never takes a message while a more urgent one of its shard was free and due (for longer than the delivery bound)',
    exercisedWhen: 'a pop took a message while another priority of its shard was free and due',
  },
  deliveredPromptly: {
    label: 'delivered promptly',
    means: 'a pop never waits longer than the delivery bound while a message of its shard is free and due',
    exercisedWhen: 'a message was free and due while a consumer of its shard was waiting',
  },
  keepsConsuming: {
    label: 'keeps consuming',
    means: 'no consumer loop ends on its own while its shard has (or later has) a message free and due: a loop outlives the faults',
    exercisedWhen: "a store error reached a consumer's pop, or a consumer loop ended before the run did",
  },
} as const satisfies Record<string, { readonly label: string; readonly means: string; readonly exercisedWhen: string }>;

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
  'priority-inversion': { label: 'priority inversion', breaks: 'priorityOrder' },
  late: { label: 'late', breaks: 'deliveredPromptly' },
  'consumer-stopped': { label: 'consumer stopped', breaks: 'keepsConsuming' },
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

/** A record with one entry per property, all false. */
export function nonePerProperty(): Record<PropertyName, boolean> {
  return Object.fromEntries(PROPERTY_NAMES.map((p) => [p, false])) as Record<PropertyName, boolean>;
}
