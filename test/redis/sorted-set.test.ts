import { describe, expect, it } from 'vitest';
import { stringBytes } from '../../src/redis/memory.js';
import { SortedSet } from '../../src/redis/sorted-set.js';

const members = (z: SortedSet) => [...z.entries()].map((e) => `${e.member}=${e.score}`);
const bytesOf = (z: SortedSet) => [...z.entries()].reduce((n, e) => n + stringBytes(e.member), 0);

describe('SortedSet', () => {
  it('keeps its members\' bytes as members are added, re-scored and removed', () => {
    const z = new SortedSet();
    for (let i = 0; i < 1_000; i++) z.set(`m${i}`, i % 7);
    z.set('m3', 99); // re-scored: no new bytes
    for (let i = 0; i < 1_000; i += 3) z.delete(`m${i}`);
    z.delete('absent');
    expect(z.memberBytes).toBe(bytesOf(z));
    expect(z.memberBytes).toBeGreaterThan(0);
  });

  it('clones into an independent set with the same order and bytes', () => {
    const z = new SortedSet();
    for (let i = 0; i < 600; i++) z.set(`m${i}`, (i * 37) % 11);
    const c = z.clone();
    expect(members(c)).toEqual(members(z));
    expect(c.memberBytes).toBe(z.memberBytes);
    c.set('new', 1);
    c.delete('m1');
    z.set('other', 2);
    expect(c.score('other')).toBeUndefined();
    expect(z.score('new')).toBeUndefined();
    expect(z.score('m1')).toBe(37 % 11);
    expect(c.rank('new')).toBeDefined();
    expect(c.memberBytes).toBe(bytesOf(c));
    expect(z.memberBytes).toBe(bytesOf(z));
  });
});
