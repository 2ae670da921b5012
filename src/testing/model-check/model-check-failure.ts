import type { QueueMode } from '../../queue/dyno-queue.js';
import type { Layout } from './layout.js';

// No fast-check here: dynoq/testing loads this statically to recognise a model check's failure.

/** What the model-based check holds the queue to: the property a failure names. */
const MODEL_PROPERTY = 'every reply of the queue, and its final state, equal the reference model\'s';

/**
 * A model-based check that failed, explained: the first reply that differed (operation, the model's
 * reply, the queue's), the commands that ran up to it with their times from the sequence's start, and
 * what replays it (fast-check seed, path and the command sequence's replay path).
 */
export class ModelCheckFailure extends Error {
  constructor(
    readonly mode: QueueMode,
    readonly seed: number,
    readonly path: string,
    readonly replayPath: string | undefined,
    /** The operation whose reply differed (or that threw), e.g. `ack` or `final getAllMessages`. */
    readonly operation: string,
    /** The model's reply (JSON, times as t+N ms); undefined when the queue threw. */
    readonly expected: string | undefined,
    /** The queue's reply (JSON, times as t+N ms), or what it threw. */
    readonly got: string,
    /** The counterexample's commands, in order, each with its time. */
    readonly commands: readonly string[],
    readonly layout: Layout,
    /** The error the failing run raised (a ModelDisagreement, or what the queue or store threw). */
    cause: unknown,
  ) {
    super(
      [
        `${mode} queue disagrees with the model (violated: ${MODEL_PROPERTY})`,
        `first differing reply: ${operation}`,
        ...(expected !== undefined ? [`  expected (model): ${expected}`, `  got (queue):      ${got}`] : [`  the queue threw: ${got}`]),
        `after ${commands.length} command(s) on ${describeLayout(layout)} (times from the sequence's start):`,
        ...commands.map((c, i) => `  ${i + 1}. ${c}`),
      ].join('\n'),
      { cause },
    );
    this.name = 'ModelCheckFailure';
  }

  /** The `dynoq check` command line that replays this failure on `redis`. */
  cliReplay(redis: string): string {
    return `npx dynoq check --redis ${redis} --mode ${this.mode} --seed ${this.seed} --path '${this.path}'${this.replayPath !== undefined ? ` --replay-path '${this.replayPath}'` : ''}`;
  }

  /** The checkAgainstModel options that replay this failure (besides the caller's own). */
  apiReplay(): string {
    return `checkAgainstModel({ ...sameOptions, modes: ['${this.mode}'], seed: ${this.seed}, path: '${this.path}'${this.replayPath !== undefined ? `, replayPath: '${this.replayPath}'` : ''} })`;
  }
}

function describeLayout(layout: Layout): string {
  return [`settle ${layout.settleMs} ms`, layout.extraShard ? 'an extra empty shard listed first' : 'one shard', layout.serverTime ? "the server's clock" : "the client's clock"].join(', ');
}
