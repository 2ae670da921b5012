import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Keyspace } from '../../src/redis/keyspace.js';

/**
 * A snapshot, a replica's restore and a clone share value objects with the keyspace they came from
 * (copied only when one side changes them). Whatever the order of writes, every keyspace must read
 * and count memory exactly as one that was given deep copies (rebuilt from a dump) instead.
 */
const KEYS = ['z1', 'z2', 'h1', 'h2'];
type Op =
  | { kind: 'cmd'; on: number; cmd: string[] }
  | { kind: 'replicate'; from: number; to: number; keys: string[] }
  | { kind: 'clone'; from: number; to: number };

const member = fc.constantFrom('a', 'b', 'c', 'd');
const command = fc.oneof(
  fc.tuple(fc.constantFrom('z1', 'z2'), fc.integer({ min: 0, max: 9 }), member).map(([k, s, m]) => ['zadd', k, String(s), m]),
  fc.tuple(fc.constantFrom('z1', 'z2'), member).map(([k, m]) => ['zrem', k, m]),
  fc.tuple(fc.constantFrom('h1', 'h2'), member, fc.constantFrom('x', 'yy', 'zzzz')).map(([k, f, v]) => ['hset', k, f, v]),
  fc.tuple(fc.constantFrom('h1', 'h2'), member).map(([k, f]) => ['hdel', k, f]),
  fc.tuple(fc.constantFrom('h1', 'h2'), member).map(([k, f]) => ['hincrby', k, `n${f}`, '3']),
  fc.constantFrom(...KEYS).map((k) => ['del', k]),
);
const node = fc.integer({ min: 0, max: 2 });
const op: fc.Arbitrary<Op> = fc.oneof(
  { weight: 5, arbitrary: fc.tuple(node, command).map(([on, cmd]) => ({ kind: 'cmd' as const, on, cmd })) },
  { weight: 2, arbitrary: fc.tuple(node, node, fc.subarray(KEYS, { minLength: 1 })).map(([from, to, keys]) => ({ kind: 'replicate' as const, from, to, keys })) },
  { weight: 1, arbitrary: fc.tuple(node, node).map(([from, to]) => ({ kind: 'clone' as const, from, to })) },
);

/** A keyspace holding fresh values equal to `source`'s. */
function rebuilt(source: Keyspace): Keyspace {
  const ks = new Keyspace();
  for (const [key, value] of Object.entries(source.dump())) {
    if (Array.isArray(value)) for (const [m, s] of value) ks.exec('zadd', [key, s, m]);
    else for (const [f, v] of Object.entries(value)) ks.exec('hset', [key, f, v]);
  }
  return ks;
}

describe('values shared between keyspaces (copy on write)', () => {
  it('every keyspace reads and counts memory as if it had been given deep copies', () => {
    fc.assert(
      fc.property(fc.array(op, { maxLength: 60 }), (ops) => {
        const shared = [new Keyspace(), new Keyspace(), new Keyspace()];
        const copied = [new Keyspace(), new Keyspace(), new Keyspace()];
        for (const o of ops) {
          if (o.kind === 'cmd') {
            const [cmd, ...args] = o.cmd as [string, ...string[]];
            expect(shared[o.on]!.exec(cmd, args)).toEqual(copied[o.on]!.exec(cmd, args));
          } else if (o.kind === 'replicate') {
            shared[o.to]!.restore(shared[o.from]!.snapshot(o.keys));
            copied[o.to]!.restore(rebuilt(copied[o.from]!).snapshot(o.keys));
          } else {
            shared[o.to] = shared[o.from]!.clone();
            copied[o.to] = rebuilt(copied[o.from]!);
          }
          for (let i = 0; i < 3; i++) {
            expect(shared[i]!.dump()).toEqual(copied[i]!.dump());
            expect(shared[i]!.usedMemory).toBe(rebuilt(shared[i]!).usedMemory);
          }
        }
      }),
      { numRuns: 300 },
    );
  });

  it('a snapshot keeps the values it was taken with while its keyspace changes', () => {
    const primary = new Keyspace();
    primary.exec('zadd', ['z', '1', 'a']);
    primary.exec('hset', ['h', 'f', 'v']);
    const snapshot = primary.snapshot(['z', 'h']);
    primary.exec('zadd', ['z', '2', 'b']);
    primary.exec('hdel', ['h', 'f']);
    const replica = new Keyspace();
    replica.restore(snapshot);
    expect(replica.dump()).toEqual({ h: { f: 'v' }, z: [['a', '1']] });
    expect(primary.dump()).toEqual({ z: [['a', '1'], ['b', '2']] });
  });
});
