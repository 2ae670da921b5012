import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ALL_SCRIPTS } from '../src/queue/scripts/index.js';
import { luaRunCount } from '../src/redis/lua-engine.js';
import type { ScriptDef } from '../src/redis/script.js';
import { disturbedRunsArb, luaTwinDifference } from '../test/support/lua-twin.js';

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

describe('Lua and twin agree on random states (no redis-server)', () => {
  it('every script the simulator runs often has a twin, the others run as Lua', () => {
    expect(TWINNED.map((s) => s.name).sort()).toEqual([
      'atomicAck',
      'atomicAckAndPop',
      'atomicAckManyAndPop',
      'atomicExtendLease',
      'atomicPop',
      'atomicPopById',
      'atomicPush',
      'atomicRelease',
      'atomicRemove',
      'atomicRequeueExpired',
      'atomicReschedule',
      'legacyBulkPopLocal',
      'scanMessages',
    ]);
  });

  it.each(TWINNED.map((s) => [s.name, s] as [string, ScriptDef]))('%s', (_name, script) => {
    const luaBefore = luaRunCount();
    fc.assert(
      fc.property(disturbedRunsArb(script), (c) => {
        expect(luaTwinDifference(c)).toBeNull();
      }),
      { numRuns: Math.round(400 * SCALE) },
    );
    // the Lua side really ran in Lua
    expect(luaRunCount() - luaBefore).toBeGreaterThan(400 * SCALE);
  }, 300_000);
});
