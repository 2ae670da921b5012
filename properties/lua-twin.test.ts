import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ALL_SCRIPTS } from '../src/queue/scripts/index.js';
import { Keyspace, type Reply } from '../src/redis/keyspace.js';
import { luaRunCount } from '../src/redis/lua-engine.js';
import type { ScriptDef } from '../src/redis/script.js';
import { SCRIPT_NOW, scriptNamed, scriptRunsArb, type ScriptRun } from '../test/support/script-calls.js';

/**
 * Every JS twin against its script's Lua, both on the in-process keyspace (no redis-server): from
 * the same random state, the same random calls must give equal replies (or the same error) and
 * equal final states. The prior state is built by the scripts themselves and then disturbed by
 * random raw commands on the same keys (missing payloads, odd ranks, fractional scores, keys of the
 * wrong type), so that twins are held to the Lua on states no queue would leave behind too.
 * Counters stay below 2^31 (past it the in-process Lua's '%d' differs from Redis's: see
 * test/redis/lua-engine.test.ts).
 */
const SCALE = Number(process.env.DYNOQ_PROPERTY_SCALE ?? 1);
const TWINNED = ALL_SCRIPTS.filter((s) => s.twin !== undefined);

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

type Outcome = { reply: Reply } | { error: string };

function outcome(ks: Keyspace, run: ScriptRun): Outcome {
  try {
    return { reply: ks.runScript(scriptNamed(run.name), run.keys, run.args) };
  } catch (err) {
    // Lua adds where the script failed (" script: <sha>, on @user_script:<line>."); a twin cannot.
    return { error: (err as Error).message.replace(/ script: [0-9a-f]{40}, on @user_script:\d+\.$/, '') };
  }
}

function disturbedRunsArb(script: ScriptDef): fc.Arbitrary<{ runs: ScriptRun[]; raw: [string, string[]][]; at: number }> {
  return fc.record({ runs: scriptRunsArb(script), raw: fc.array(rawCommand, { maxLength: 6 }), at: fc.nat() });
}

describe('Lua and twin agree on random states (no redis-server)', () => {
  it('every script the simulator runs often has a twin, the others run as Lua', () => {
    expect(TWINNED.map((s) => s.name).sort()).toEqual(['atomicAck', 'atomicAckAndPop', 'atomicPop', 'atomicPush', 'atomicRequeueExpired']);
  });

  it.each(TWINNED.map((s) => [s.name, s] as [string, ScriptDef]))('%s', (_name, script) => {
    const luaBefore = luaRunCount();
    fc.assert(
      fc.property(disturbedRunsArb(script), ({ runs, raw, at }) => {
        const twin = new Keyspace(() => SCRIPT_NOW, 'twin');
        const lua = new Keyspace(() => SCRIPT_NOW, 'lua');
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
          expect(outcome(twin, step.r), `${step.r.name} ${JSON.stringify([step.r.keys, step.r.args])}`).toEqual(outcome(lua, step.r));
        }
        expect(twin.dump()).toEqual(lua.dump());
      }),
      { numRuns: Math.round(400 * SCALE) },
    );
    // the Lua side really ran in Lua
    expect(luaRunCount() - luaBefore).toBeGreaterThan(400 * SCALE);
  }, 300_000);
});
