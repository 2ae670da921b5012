import type { ScriptDef } from '../../redis/script.js';
import type { Reply, Value } from '../../redis/keyspace.js';
import { WRITE_COMMANDS } from '../../redis/memory.js';

/** One operation a client sends to a node. */
export type StoreOp =
  | { readonly kind: 'cmd'; readonly cmd: string; readonly args: readonly string[] }
  | {
      readonly kind: 'script';
      readonly script: ScriptDef;
      readonly keys: readonly string[];
      readonly args: readonly string[];
      /** Sent as EVALSHA: a node whose script cache lacks it answers NOSCRIPT (EVAL caches it). */
      readonly viaSha?: boolean;
    }
  | { readonly kind: 'wait'; readonly replicas: number; readonly timeoutMs: number }
  /** A script's effects as a replica of Redis ≥ 5 receives them: the resulting values of its keys. */
  | { readonly kind: 'effects'; readonly entries: readonly [string, Value | undefined][] };


export function isWrite(op: StoreOp): boolean {
  if (op.kind === 'cmd') return WRITE_COMMANDS.has(op.cmd);
  if (op.kind === 'script') return op.script.writes;
  return op.kind === 'effects';
}

/** What a node answers: a value, or a Redis error. */
export type NodeReply = { readonly ok: true; readonly value: Reply } | { readonly ok: false; readonly error: string };
