import fc from 'fast-check';
import type { ScriptDef } from '../../src/redis/script.js';
import { ALL_SCRIPTS } from '../../src/queue/scripts/index.js';

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

/** Plausible ARGV for each script over a small id pool, so that scripts hit their interesting paths. */
const ids = fc.constantFrom('m1', 'm2', 'm3');
const now = fc.constantFrom('1700000000000', '1700000000500', '1700000005000');
const head = ['h:msg', 'h:meta', 'h:lease', 'h:counters'];
const shards = ['z:q:a', 'z:r:a', 'z:u:a', 'z:q:b', 'z:r:b', 'z:u:b'];
export const calls: Record<string, fc.Arbitrary<[string[], string[]]>> = {
  atomicPush: fc
    .tuple(now, fc.constantFrom('0', '1'), fc.array(fc.tuple(fc.constantFrom('1', '2'), ids, fc.constantFrom('0', '5', '50'), fc.constantFrom('0', '1000')), { minLength: 1, maxLength: 3 }))
    .map(([n, absent, ms]) => [[...head, ...shards], [n, '0', absent, ...ms.flatMap(([s, id, p, d]) => [s, id, p, d, `{"id":"${id}","payload":"p ${id}"}`])]]),
  atomicPop: fc.tuple(now, fc.integer({ min: 1, max: 3 })).map(([n, c]) => [[...head, 'z:q:a', 'z:r:a', 'z:u:a'], [n, '0', String(c), '1000']]),
  atomicPopById: fc.tuple(now, ids).map(([n, id]) => [[...head, 'z:q:a', 'z:r:a', 'z:u:a'], [n, '0', id, '1000']]),
  atomicAck: fc.tuple(ids, fc.constantFrom('', '1', '2', '3')).map(([id, t]) => [['h:msg', 'h:meta', 'h:lease', 'z:u:a', 'z:u:b'], [id, t]]),
  atomicAckAndPop: fc
    .tuple(now, fc.integer({ min: 1, max: 3 }), ids, fc.constantFrom('', '1', '2'))
    .map(([n, c, id, t]) => [[...head, 'z:q:a', 'z:r:a', 'z:u:a', 'z:u:a', 'z:u:b'], [n, '0', String(c), '1000', id, t]]),
  atomicExtendLease: fc.tuple(now, ids, fc.constantFrom('', '1', '2')).map(([n, id, t]) => [['h:lease', 'z:u:a', 'z:u:b'], [n, '0', id, t, '500']]),
  atomicRequeueExpired: now.map((n) => [['h:msg', 'h:meta', 'h:lease', 'z:r:a', 'z:u:a'], [n, '0', '10']]),
  atomicReschedule: fc.tuple(now, ids).map(([n, id]) => [['z:q:a', 'z:r:a', 'z:q:b', 'z:r:b'], [n, '0', id, '200']]),
  atomicRemove: ids.map((id) => [['h:msg', 'h:meta', 'h:lease', ...shards], [id]]),
  atomicPeek: fc.tuple(now, fc.integer({ min: 1, max: 3 })).map(([n, c]) => [['h:msg', 'h:meta', 'z:q:a', 'z:r:a'], [n, '0', String(c)]]),
  atomicFindStale: fc.constant([['h:msg', ...shards], ['10']]),
  findByPayloadPattern: fc.tuple(fc.constantFrom('p m%d', '^p', 'zz', 'm2$'), fc.boolean()).map(([p, local]) => [local ? ['h:msg', 'z:q:a', 'z:r:a'] : ['h:msg'], [p]]),
  legacyBulkPopLocal: fc.tuple(fc.array(ids, { minLength: 1, maxLength: 3 }), now).map(([xs, n]) => [['h:msg', 'z:q:a', 'z:u:a'], [String(xs.length), n, '1700000009999', ...xs]]),
  legacyFindStale: fc.array(ids, { minLength: 1, maxLength: 3 }).map((xs) => [['h:msg', 'z:q:a', 'z:u:a'], [String(xs.length), ...xs]]),
  legacyProcessUnacks: now.map((n) => [['h:msg', 'z:q:a', 'z:u:a'], [n, '10']]),
};


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
