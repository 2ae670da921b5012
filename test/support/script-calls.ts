import fc from 'fast-check';
import type { ScriptDef } from '../../src/redis/script.js';
import { ALL_SCRIPTS } from '../../src/queue/scripts/index.js';
import { scriptCalls } from '../../src/testing/differential.js';

/**
 * Random calls of the queue's scripts for conformance suites: plausible KEYS and ARGV over a small
 * id pool (so that scripts hit their interesting paths), and random prior states built by the
 * scripts themselves. Used against redis-server (test/conformance/differential.test.ts) and for Lua
 * versus twin (properties/lua-twin.test.ts).
 */

/** The server clock (ms) the in-process keyspaces run scripts at. */
export const SCRIPT_NOW = 1_700_000_000_000;

/** One call: the script by name (so that a failing case prints short), its KEYS and ARGV. */
export interface ScriptRun {
  readonly name: string;
  readonly keys: string[];
  readonly args: string[];
}

const calls = scriptCalls;

const byName = new Map(ALL_SCRIPTS.map((s) => [s.name, s]));

export function scriptNamed(name: string): ScriptDef {
  const def = byName.get(name);
  if (!def) throw new Error(`no script ${name}`);
  return def;
}

/** A random prior state (pushes, pops and acks), then one to three calls of `script`. */
export function scriptRunsArb(script: ScriptDef): fc.Arbitrary<ScriptRun[]> {
  const call = calls[script.name];
  if (!call) throw new Error(`no argument generator for ${script.name}`);
  const step = (name: string) => calls[name]!.map(([keys, args]): ScriptRun => ({ name, keys, args }));
  const setup = fc.array(fc.oneof(step('atomicPush'), step('atomicPop'), step('atomicAck')), { maxLength: 6 });
  return fc.tuple(setup, fc.array(step(script.name), { minLength: 1, maxLength: 3 })).map(([prior, runs]) => [...prior, ...runs]);
}
