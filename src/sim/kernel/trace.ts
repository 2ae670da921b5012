import { createHash, type Hash } from 'node:crypto';

export interface TraceEvent {
  /** True virtual time (ms). */
  readonly t: number;
  readonly actor: string;
  readonly op: string;
  readonly args?: unknown;
  readonly result?: unknown;
}

/**
 * `JSON.stringify(event)` for an event whose fields were written in the order t, actor, op, args,
 * result (every caller's, and the trace format's), byte for byte, with two shortcuts: names are quoted
 * once, and a frozen array (a queue's fixed KEYS list: frozen, so it cannot have changed since) is
 * serialized once. Top-level arrays of args and result are walked so that a frozen list inside is found.
 */
export function traceLine(event: TraceEvent): string {
  let line = `{"t":${time(event.t)},"actor":${quoted(event.actor)},"op":${quoted(event.op)}`;
  const args = field(event.args);
  if (args !== undefined) line += `,"args":${args}`;
  const result = field(event.result);
  if (result !== undefined) line += `,"result":${result}`;
  return `${line}}`;
}

/** Events come in bursts at one instant (a reply, then what the actor records): its digits are formatted once. */
let lastTime = Number.NaN;
let lastTimeJson = 'null';
function time(t: number): string {
  if (t !== lastTime) {
    lastTime = t;
    lastTimeJson = Number.isFinite(t) ? String(t) : 'null';
  }
  return lastTimeJson;
}

/** A field's JSON, or undefined where JSON.stringify leaves the field out (undefined, a function). */
function field(value: unknown): string | undefined {
  return Array.isArray(value) ? json(value, 2) : typeof value === 'string' ? quotedString(value) : (JSON.stringify(value) as string | undefined);
}

/** Printable ASCII but `"` and `\`: JSON quotes such a string as it is (a regex test is ~3× cheaper than a stringify call). */
const PLAIN = /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/;
function quotedString(value: string): string {
  return PLAIN.test(value) ? `"${value}"` : JSON.stringify(value);
}

const quotedNames = new Map<string, string>();
function quoted(name: string): string {
  let q = quotedNames.get(name);
  if (q === undefined) {
    q = JSON.stringify(name);
    if (quotedNames.size < 10_000) quotedNames.set(name, q);
  }
  return q;
}

const frozenJson = new WeakMap<readonly unknown[], string>();
/** A value as an array element or field value; `depth` levels of plain arrays are walked. */
function json(value: unknown, depth: number): string {
  if (typeof value === 'string') return quotedString(value);
  if (!Array.isArray(value)) return JSON.stringify(value) ?? 'null';
  if (Object.isFrozen(value)) {
    let cached = frozenJson.get(value);
    if (cached === undefined) {
      cached = JSON.stringify(value);
      frozenJson.set(value, cached);
    }
    return cached;
  }
  if (depth === 0) return JSON.stringify(value);
  let out = '[';
  for (let i = 0; i < value.length; i++) out += (i > 0 ? ',' : '') + json(value[i], depth - 1);
  return `${out}]`;
}

/** What a run does with its trace: hash it (optionally keeping the lines), or only count its events. */
export type TraceMode = 'hash' | 'keep' | 'count';

/**
 * The run's trace: one JSON line per event, hashed as it is written (SHA-256 over the lines), kept
 * in memory only when asked, so that long runs can be hashed without holding their trace. A run whose
 * hash nobody reads (a guarantees-table run: its verdict comes from the history) only counts events:
 * serializing and hashing them was a tenth of such a run.
 */
export class Trace {
  private readonly hash: Hash | null;
  private readonly lines: string[] | null;
  private count = 0;
  /** Lines not yet hashed: hashing in chunks digests the same bytes with far fewer native calls. */
  private pending = '';
  private sealed = false;

  constructor(readonly mode: TraceMode) {
    this.hash = mode === 'count' ? null : createHash('sha256');
    this.lines = mode === 'keep' ? [] : null;
  }

  record(event: TraceEvent): void {
    // After the digest (the run is over: only replication draining for the replica check) nothing is recorded.
    if (this.sealed) return;
    this.count++;
    if (this.hash === null) return;
    const line = traceLine(event);
    this.pending += `${line}\n`;
    if (this.pending.length > 65_536) this.flush();
    this.lines?.push(line);
  }

  get events(): number {
    return this.count;
  }

  /** The lines, when kept. */
  text(): string | null {
    return this.lines ? `${this.lines.join('\n')}\n` : null;
  }

  private flush(): void {
    this.hash?.update(this.pending);
    this.pending = '';
  }

  /** Finishes the hash; call once, at the end of the run. A trace that only counts has none. */
  digest(): string {
    if (this.hash === null) throw new Error('this trace only counts its events: it has no hash (digest() of a counted trace)');
    this.flush();
    this.sealed = true;
    return this.hash.digest('hex');
  }

  /** Ends the recording without a hash (a counted trace's end of run). */
  seal(): void {
    this.sealed = true;
  }
}
