import { describe, expect, it } from 'vitest';
import { Keyspace } from '../../src/redis/keyspace.js';
import type { ScriptDef } from '../../src/redis/script.js';
import { atomicPopById, legacyBulkPopLocal } from '../../src/queue/scripts/index.js';

/** A twin's failed redis.call reaches the client worded as its Lua's (the wording is in every trace). */
function thrown(mode: 'lua' | 'twin', prepare: (ks: Keyspace) => void, script: ScriptDef, keys: readonly string[], args: readonly string[]): string {
  const ks = new Keyspace(() => 1_700_000_000_000, mode);
  prepare(ks);
  try {
    ks.runScript(script, keys, args);
  } catch (err) {
    return (err as Error).message;
  }
  throw new Error('the script did not fail');
}

describe('twin errors are worded as the Lua words them', () => {
  it('a write refused for memory (OOM) in legacyBulkPopLocal', () => {
    const prepare = (ks: Keyspace) => {
      ks.exec('zadd', ['z:q:a', '1', 'm1']);
      ks.exec('hset', ['h:msg', 'm1', 'payload']);
      ks.setMemoryLimit({ maxmemory: 1, policy: 'noeviction' });
    };
    const call = [legacyBulkPopLocal, ['h:msg', 'z:q:a', 'z:u:a'], ['1', '1700000000000', '1700000009999', 'm1']] as const;
    const lua = thrown('lua', prepare, ...call);
    expect(lua).toMatch(/^OOM .* script: [0-9a-f]{40}, on @user_script:1\.$/);
    expect(thrown('twin', prepare, ...call)).toBe(lua);
  });

  it('a command against the wrong type (WRONGTYPE) in atomicPopById', () => {
    const prepare = (ks: Keyspace) => {
      ks.exec('zadd', ['z:q:a', '1', 'm1']);
      ks.exec('zadd', ['h:msg', '1', 'not-a-hash']);
    };
    const call = [atomicPopById, ['h:msg', 'h:meta', 'h:lease', 'h:counters', 'z:q:a', 'z:r:a', 'z:u:a'], ['1700000000000', '0', 'm1', '1000', 't1']] as const;
    const lua = thrown('lua', prepare, ...call);
    expect(lua).toMatch(/^WRONGTYPE /);
    expect(thrown('twin', prepare, ...call)).toBe(lua);
  });
});
