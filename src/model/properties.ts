/**
 * The one table of what the checker decides (docs/CHECKER.md §3): every property, and every kind of finding
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
  twinsMatchLua: {
    label: 'twins match Lua',
    means: "the simulator's JavaScript twin of every script gives the reply and the effects its Lua gives on Redis (every other verdict of a simulation rests on it; a recorded history cannot break it)",
    exercisedWhen: "a simulation compared its scripts' twins with their Lua (scripts: compare)",
  },
  keepsConsuming: {
    label: 'keeps consuming',
    means: 'no consumer loop ends on its own while its shard has (or later has) a message free and due: a loop outlives the faults',
    exercisedWhen: "a store error reached a consumer's pop, or a consumer loop ended before the run did",
  },
} as const satisfies Record<string, { readonly label: string; readonly means: string; readonly exercisedWhen: string }>;

export type PropertyName = keyof typeof PROPERTIES;
export const PROPERTY_NAMES = Object.keys(PROPERTIES) as [PropertyName, ...PropertyName[]];

/** Properties a gate (explore, simulate) keeps whatever its `require` says: every other verdict of a simulation rests on them. */
export const ALWAYS_REQUIRED: readonly PropertyName[] = ['twinsMatchLua'];

interface KindDefinition {
  readonly label: string;
  /** The property this kind breaks; null for kinds that are reported but allowed. */
  readonly breaks: PropertyName | null;
  /** Severity: 1 is the worst. Every summary, title and report names and lists findings worst first (WORST_FIRST). */
  readonly rank: number;
}

/**
 * Every kind of finding. The ranks order them by what the user's work suffers, worst first:
 * a Redis that stops answering everyone (a script past the time limit), then work silently never done
 * (lost; a run that never ends, or a consumer that stopped with work left to it, cannot finish it either) before work done twice at once (double pop: the exclusivity a
 * consumer relies on is gone) before work done again after it was declared final (resurrection) or
 * done without ever being asked for (unexpected) — both deliveries that must not happen, but one at a
 * time — before a simulation that ran other code than Redis runs (a twin unlike its Lua: the run's other
 * verdicts are in doubt), before work done, only late after a failure (slow recovery), before the timing promises:
 * too early (on time: a delay is a promise about the work's content), out of order (priority), and
 * slow while a consumer waits (late). Allowed duplicates come last. docs/CHECKER.md §4 gives the argument.
 */
export const VIOLATION_KINDS = {
  'script-time-limit': { label: 'script past the time limit (Redis answers BUSY)', breaks: 'atLeastOnce', rank: 1 },
  'lost-never-delivered': { label: 'lost (never delivered)', breaks: 'atLeastOnce', rank: 2 },
  'lost-after-delivery': { label: 'lost (delivered, then dropped)', breaks: 'atLeastOnce', rank: 3 },
  // A run that never reaches its end cannot process what it was pushed: a liveness finding.
  'event-budget': { label: 'run past its event budget (never ends)', breaks: 'atLeastOnce', rank: 4 },
  // A consumer loop that ended with work left to it: that work waits for nobody (liveness).
  'consumer-stopped': { label: 'consumer stopped', breaks: 'keepsConsuming', rank: 5 },
  'double-pop': { label: 'double pop', breaks: 'noDoublePop', rank: 6 },
  resurrection: { label: 'resurrection', breaks: 'acksAreFinal', rank: 7 },
  unexpected: { label: 'unexpected', breaks: 'noPhantoms', rank: 8 },
  // The simulation ran code that is not what Redis runs: every other verdict of the run is in doubt.
  'twin-differs': { label: "a script's twin differs from its Lua", breaks: 'twinsMatchLua', rank: 9 },
  'slow-recovery': { label: 'slow recovery', breaks: 'unackRecovery', rank: 10 },
  early: { label: 'early', breaks: 'onTime', rank: 11 },
  'priority-inversion': { label: 'priority inversion', breaks: 'priorityOrder', rank: 12 },
  late: { label: 'late', breaks: 'deliveredPromptly', rank: 13 },
  duplicate: { label: 'duplicate (allowed by at-least-once)', breaks: null, rank: 14 },
} as const satisfies Record<string, KindDefinition>;

export type ViolationKind = keyof typeof VIOLATION_KINDS;
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
