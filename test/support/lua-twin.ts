import fc from 'fast-check';
import { Keyspace, type Reply } from '../../src/redis/keyspace.js';
import type { ScriptDef } from '../../src/redis/script.js';
import { NOW_LUA } from '../../src/queue/scripts/atomic-common.js';
import { ALL_SCRIPTS } from '../../src/queue/scripts/index.js';
import { SCRIPT_NOW, scriptNamed, scriptRunsArb, type ScriptRun } from './script-calls.js';

/**
 * A script's Lua against its JS twin on one random case: the prior state is built by the scripts
 * themselves and disturbed by random raw commands on the same keys (missing payloads, odd ranks,
 * fractional scores, keys of the wrong type). Used by properties/lua-twin.test.ts and by the Lua
 * mutation tester (scripts/lua-mutation), where a mutant's Lua is held to the twin.
 */
const hashKey = fc.constantFrom('h:msg', 'h:meta', 'h:lease', 'h:counters');
const setKey = fc.constantFrom('z:q:a', 'z:r:a', 'z:u:a', 'z:q:b', 'z:r:b', 'z:u:b');
const id = fc.constantFrom('m1', 'm2', 'm3', 'lease', 'seq');
const odd = fc.constantFrom('', 'x', '0', '7', '-1', '1.5', '2147483000', '{"id":"m1","payload":"p"}');
const score = fc.constantFrom('0', '1.5', '-3', '1700000000000', '1700000000499.5', '1700000009999', '+inf', '-inf', '5000000000002');

const rawCommand: fc.Arbitrary<[string, string[]]> = fc.oneof(
  fc.tuple(hashKey, id, odd).map(([k, f, v]): [string, string[]] => ['hset', [k, f, v]]),
  fc.tuple(hashKey, id).map(([k, f]): [string, string[]] => ['hdel', [k, f]]),
  fc.tuple(setKey, score, id).map(([k, s, m]): [string, string[]] => ['zadd', [k, s, m]]),
  fc.tuple(setKey, id).map(([k, m]): [string, string[]] => ['zrem', [k, m]]),
  fc.oneof(hashKey, setKey).map((k): [string, string[]] => ['del', [k]]),
  // a key of the wrong type: the scripts' redis.call fails, and twin and Lua must fail alike
  fc.constantFrom<[string, string[]]>(['zadd', ['h:meta', '1', 'm1']], ['hset', ['z:u:a', 'm1', 'x']]),
);

export type Outcome = { reply: Reply } | { error: string };

function outcome(ks: Keyspace, run: ScriptRun): Outcome {
  try {
    return { reply: ks.runScript(scriptNamed(run.name), run.keys, run.args) };
  } catch (err) {
    // Lua adds where the script failed (" script: <sha>, on @user_script:<line>."); a twin cannot.
    return { error: (err as Error).message.replace(/ script: [0-9a-f]{40}, on @user_script:\d+\.$/, '') };
  }
}

/** The server's clock in these keyspaces: not on a second boundary, so TIME's microseconds matter. */
const SERVER_NOW = SCRIPT_NOW + 123;

/**
 * Half the cases ask for the server's clock (ARGV[2] = '1') in every script that reads it, so that
 * the TIME branch is held to the twin too (a mutation of it went unnoticed before).
 */
// Decided from the scripts' texts as loaded (a mutation tester changes them later).
const READS_SERVER_TIME = new Set(ALL_SCRIPTS.filter((s) => s.lua.includes(NOW_LUA)).map((s) => s.name));

function withServerTime(run: ScriptRun): ScriptRun {
  if (!READS_SERVER_TIME.has(run.name) || run.args[1] !== '0') return run;
  return { ...run, args: [run.args[0]!, '1', ...run.args.slice(2)] };
}

export function disturbedRunsArb(script: ScriptDef): fc.Arbitrary<LuaTwinCase> {
  return fc
    .record({ runs: scriptRunsArb(script), raw: fc.array(rawCommand, { maxLength: 6 }), at: fc.nat(), serverTime: fc.boolean() })
    .map(({ runs, raw, at, serverTime }) => ({ runs: serverTime ? runs.map(withServerTime) : runs, raw, at }));
}

export interface LuaTwinCase {
  readonly runs: ScriptRun[];
  readonly raw: [string, string[]][];
  readonly at: number;
}

/** Runs one case on a twin keyspace and a Lua keyspace; returns the first difference, or null. */
export function luaTwinDifference({ runs, raw, at }: LuaTwinCase): string | null {
  const twin = new Keyspace(() => SERVER_NOW, 'twin');
  const lua = new Keyspace(() => SERVER_NOW, 'lua');
  // the raw disturbance goes in before one of the calls, at a random point
  const cut = at % (runs.length + 1);
  const steps = [...runs.slice(0, cut).map((r) => ({ r })), ...raw.map((c) => ({ c })), ...runs.slice(cut).map((r) => ({ r }))];
  for (const step of steps) {
    if ('c' in step) {
      for (const ks of [twin, lua]) {
        try {
          ks.exec(step.c[0], step.c[1]);
        } catch {
          // a raw command of the wrong type fails alike on both
        }
      }
      continue;
    }
    const a = JSON.stringify(outcome(twin, step.r));
    const b = JSON.stringify(outcome(lua, step.r));
    if (a !== b) return `${step.r.name} ${JSON.stringify([step.r.keys, step.r.args])}: twin ${a}, Lua ${b}`;
  }
  const da = JSON.stringify(twin.dump());
  const db = JSON.stringify(lua.dump());
  return da === db ? null : `final state: twin ${da}, Lua ${db}`;
}
