import type { ScriptDef } from '../../redis/script.js';
import { scriptModeFromEnv } from './script-mode-env.js';
import { SkewedClock } from '../kernel/actor-time.js';
import type { Kernel } from '../kernel/kernel.js';
import { Keyspace, type ScriptMode } from '../../redis/keyspace.js';
import type { NodeReply, StoreOp } from './store-op.js';
import { ScriptTimeLimitError, ScriptTwinMismatchError, type ScriptBudget } from '../../redis/script-budget.js';
import { writeChanged } from './write-owner.js';
import { diskKeeps, EVERYSEC_FSYNC_MS, type NodeLoss, type Persistence } from '../settings/persistence.js';

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
  /** What its disk keeps across a crash (topology.persistence). */
  persistence: Persistence = 'none';
  /** aof-everysec: its data as of the last fsync (a copy taken at the first write after each one), and when the next is due. */
  private fsynced: Keyspace | null = null;
  private nextFsyncAt = 0;

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
    this.fsyncIfDue();
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
    this.fsyncIfDue();
    this.keyspace = source.keyspace.clone(() => this.clock.now());
  }

  /**
   * aof-everysec: an fsync at every whole second of true time makes the disk what memory held then;
   * that is memory as it is before the first write after it, so the copy is taken there (no timer).
   */
  private fsyncIfDue(): void {
    if (this.persistence !== 'aof-everysec' || this.kernel.now < this.nextFsyncAt) return;
    this.fsynced = this.keyspace.clone(() => this.clock.now());
    this.nextFsyncAt = (Math.floor(this.kernel.now / EVERYSEC_FSYNC_MS) + 1) * EVERYSEC_FSYNC_MS;
  }

  /**
   * What a restart after `loss` finds on the disk: all it holds now, an older copy (the last fsync
   * of aof-everysec when its machine lost power), or nothing.
   */
  disk(loss: NodeLoss): 'all' | 'nothing' | Keyspace {
    const keeps = diskKeeps(this.persistence, loss);
    if (keeps !== 'fsynced') return keeps;
    if (this.kernel.now >= this.nextFsyncAt) return 'all';
    return this.fsynced ?? 'nothing';
  }

  /** The process restarts from an older copy of its data (what the disk held); its script cache is empty. */
  reload(disk: Keyspace): void {
    this.scriptCache.clear();
    this.keyspace = disk.clone(() => this.clock.now());
  }

  /** A restarted process has no script cache, whatever its disk kept. */
  forgetScripts(): void {
    this.scriptCache.clear();
  }

  wipe(): void {
    this.scriptCache.clear();
    this.keyspace = new Keyspace(() => this.clock.now(), this.keyspace.scriptMode, this.keyspace.scriptBudget);
  }
}
