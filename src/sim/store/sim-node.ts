import type { ScriptDef } from '../../redis/script.js';
import { scriptModeFromEnv } from './script-mode-env.js';
import { SkewedClock } from '../kernel/actor-time.js';
import type { Kernel } from '../kernel/kernel.js';
import { Keyspace, type ScriptMode } from '../../redis/keyspace.js';
import type { NodeReply, StoreOp } from './store-op.js';
import { ScriptTimeLimitError, ScriptTwinMismatchError, type ScriptBudget } from '../../redis/script-budget.js';
import { writeChanged } from './write-owner.js';

/**
 * How simulated nodes run scripts: `'twin'` (the default; JS twins where a script has one, proven
 * equal to the Lua by properties/lua-twin.test.ts) or `'lua'` (always Redis's Lua: slower, exact for
 * any script). Both give the same trace for the same seed (test/sim/script-modes.test.ts).
 * DYNOQ_SCRIPTS=lua selects exact Lua for a whole process (e.g. `DYNOQ_SCRIPTS=lua npx dynoq sim`).
 */
let scriptMode: ScriptMode | undefined;

/** Sets how nodes created from now on run scripts (undefined: as DYNOQ_SCRIPTS says); returns the previous setting. */
export function setSimScriptMode(mode: ScriptMode | undefined): ScriptMode | undefined {
  const previous = scriptMode;
  scriptMode = mode;
  return previous;
}

/** How a run's nodes run scripts: the mode (default: setSimScriptMode, else DYNOQ_SCRIPTS) and each call's budget. */
export interface NodeScripts {
  readonly mode?: ScriptMode;
  readonly budget?: ScriptBudget;
}


/** One Redis server: a keyspace, its own (skewable) clock, up or down. */
export class SimNode {
  keyspace: Keyspace;
  readonly clock: SkewedClock;
  up = true;
  /** Bumped on crash: replication messages sent before it are ignored when they arrive. */
  generation = 0;
  /** The scripts this server has cached (by EVAL or an earlier EVALSHA); lost when it restarts empty. */
  private readonly scriptCache = new Set<ScriptDef>();

  constructor(
    readonly name: string,
    readonly zone: string,
    private readonly kernel: Kernel,
    scripts: NodeScripts = {},
  ) {
    this.clock = new SkewedClock(kernel);
    this.keyspace = new Keyspace(() => this.clock.now(), scripts.mode ?? scriptMode ?? scriptModeFromEnv(), scripts.budget);
  }

  /** Runs `op` here; tells the call that sent it when it changed data, whatever the reply. */
  apply(op: StoreOp): NodeReply {
    const keyspace = this.keyspace;
    const before = keyspace.changes;
    const reply = this.run(op);
    if (keyspace.changes !== before) writeChanged(op);
    return reply;
  }

  private run(op: StoreOp): NodeReply {
    try {
      if (op.kind === 'cmd') return { ok: true, value: this.keyspace.exec(op.cmd, op.args) };
      if (op.kind === 'script') {
        if (op.viaSha && !this.scriptCache.has(op.script)) return { ok: false, error: 'NOSCRIPT No matching script. Please use EVAL.' };
        this.scriptCache.add(op.script);
        return { ok: true, value: this.keyspace.runScript(op.script, op.keys, op.args) };
      }
      if (op.kind === 'effects') {
        this.keyspace.restore(op.entries);
        return { ok: true, value: 'OK' };
      }
      return { ok: false, error: 'ERR WAIT is handled by the topology' };
    } catch (err) {
      // Findings about the script itself end the run: on Redis the first would hold the server for
      // good (every other client gets BUSY), the second means the twin does not simulate that script.
      if (err instanceof ScriptTimeLimitError) this.kernel.stop({ kind: 'script-time-limit', subject: err.script, detail: `${this.name}: ${err.message}` });
      else if (err instanceof ScriptTwinMismatchError) this.kernel.stop({ kind: 'twin-differs', subject: err.script, detail: `${this.name}: ${err.message}` });
      return { ok: false, error: err instanceof Error ? err.message : String(err) };
    }
  }

  /** Applies a write streamed from this node's primary: its own memory limit does not apply. */
  applyReplicated(op: StoreOp): NodeReply {
    return this.keyspace.asReplica(() => this.apply(op));
  }

  /** Replaces this node's data with a copy of another's (a full resync). */
  resyncFrom(source: SimNode): void {
    this.keyspace = source.keyspace.clone(() => this.clock.now());
  }

  wipe(): void {
    this.scriptCache.clear();
    this.keyspace = new Keyspace(() => this.clock.now(), this.keyspace.scriptMode, this.keyspace.scriptBudget);
  }
}
