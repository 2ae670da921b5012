import type { CheckerSettings, DeliverOp, PopOp, RunPhases, StoppedConsumer } from '../history.js';
import type { FreeInterval } from '../free-intervals.js';
import type { Hold } from '../holds.js';
import type { MessageOps } from '../message-ops.js';

/** One kind of finding a module defines: its label, its severity (1 is the worst) and why it sits there (docs/CHECKER.md §4 lists them). */
export interface KindDefinition {
  readonly label: string;
  readonly rank: number;
  /** Why a finding of this kind is worse than the next: docs/CHECKER.md §4's line for it. */
  readonly why: string;
}

/** Reports one finding of a kind of the judging module's, about the message judged. */
export type Found<K extends string> = (kind: K, t: number, processes: string[], detail: string) => void;

/** Reports one finding of a kind of the judging module's, about the message `id`. */
export type FoundAbout<K extends string> = (kind: K, id: string, t: number, processes: string[], detail: string) => void;

/** What judging one message sees (docs/CHECKER.md §2, §3). */
export interface MessageJudging<K extends string> {
  readonly id: string;
  readonly m: MessageOps;
  readonly holds: readonly Hold[];
  readonly phases: RunPhases;
  readonly settings: CheckerSettings;
  /** The unknown pops still in flight when the history ended (any message's). */
  readonly popsAtEnd: readonly PopOp[];
  /** Whether the history records pop calls (with a delivery bound, un-ack recovery is then judged on demand). */
  readonly popsRecorded: boolean;
  readonly found: Found<K>;
  /** The history could have broken the property (docs/CHECKER.md §5). */
  readonly exercised: () => void;
  /** A due → delivery latency (ms) for the report. */
  readonly latency: (ms: number) => void;
}

/** A stretch in which a re-delivery was owed, on its shard: judged against the shard's waiting pops. */
export interface OwedStretch {
  readonly shard: string;
  readonly iv: FreeInterval;
  readonly holder: string;
  readonly ended: string;
}

/** What the shards' judgements know of one shard: its free and due stretches, deliveries and owed re-deliveries. */
interface ShardSet {
  free: FreeInterval[];
  deliveries: DeliverOp[];
  priorityOf: Map<DeliverOp, number>;
  owed: OwedStretch[];
}

/** The stretches and deliveries of each shard, in the order their parts are added (the history's order of first appearance). */
export type ShardSets = Map<string, ShardSet>;

/** What judging one shard as a whole sees (only with a delivery bound). */
interface ShardJudging<K extends string> {
  readonly shard: string;
  readonly s: ShardSet;
  /** The pops by the schedule of this shard (waitingPops). */
  readonly waiting: readonly PopOp[];
  readonly boundMs: number;
  readonly found: FoundAbout<K>;
  readonly exercised: () => void;
}

/** What judging the consumer loops that ended on their own sees (only with a delivery bound). */
interface StopsJudging<K extends string> {
  readonly stopped: readonly StoppedConsumer[];
  readonly shards: ShardSets;
  /** Whether a pop by the schedule did not return ok: a store error reached a consumer. */
  readonly errorReachedConsumer: boolean;
  /** When the faults had healed (the liveness phase began), the stated recovery bound and B (docs/CHECKER.md §2.7). */
  readonly livenessStart: number;
  readonly recoveryBoundMs: number;
  readonly boundMs: number;
  /** The history follows its consumer loops (a simulated run or a real twin says which stopped): only then is the bound judged. */
  readonly loopsFollowed: boolean;
  /** The pops by the schedule that returned ok, by shard: who was asking, and when. */
  readonly asking: ReadonlyMap<string, readonly PopOp[]>;
  /** The shards where a store error reached a consumer's pop (one by the schedule that did not return ok). */
  readonly erred: ReadonlySet<string>;
  readonly found: FoundAbout<K>;
  readonly exercised: () => void;
}

/**
 * One property: what it means, when a history exposes it, the kinds of finding that break it and its
 * judges. docs/CHECKER.md §3 is generated from `brokenBy` (its row) and `brokenInSimulationsBy` (a row
 * of the kinds only a simulation can find).
 */
export interface PropertyModule<N extends string = string, K extends string = string> {
  readonly name: N;
  readonly label: string;
  readonly means: string;
  readonly exercisedWhen: string;
  readonly kinds: { readonly [k in K]: KindDefinition };
  readonly brokenBy?: string;
  readonly brokenInSimulationsBy?: string;
  // Method syntax: the checker calls every module through PropertyModule<string, string>.
  /** Judged also for a message nobody pushed (the others judge only pushed messages). */
  readonly judgesUnpushed?: boolean;
  judgeMessage?(j: MessageJudging<K>): void;
  judgeShard?(j: ShardJudging<K>): void;
  judgeStops?(j: StopsJudging<K>): void;
}

/** Findings that are reported but break no property (docs/CHECKER.md §2.6). */
export interface AllowedFinding<K extends string = string> {
  readonly kinds: { readonly [k in K]: KindDefinition };
  readonly judgesUnpushed?: boolean;
  judgeMessage(j: MessageJudging<K>): void;
}

/** Declares a property module, keeping its name and kinds as literal types. */
export function property<const N extends string, const K extends string>(p: PropertyModule<N, K>): PropertyModule<N, K> {
  return p;
}
