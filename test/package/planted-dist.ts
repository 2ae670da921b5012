import { cpSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** One planted change: every occurrence of `from` in the package's compiled JS becomes `to`; `count` occurrences must be there. */
export interface DistPatch {
  readonly from: string;
  readonly to: string;
  readonly count: number;
}

/**
 * Regressions planted in a copy of the installed package's dist/ (what a user's CI would run after a
 * bad change to the queue): each names the Lua text and/or the JavaScript twin line it changes.
 */
export const PLANTS = {
  /** pop no longer takes the ids it leases out of READY: an id whose message is gone loops every later pop forever (Lua and twin). */
  endlessPop: [
    { from: "      redis.call('zrem', ready, ids[i])\n", to: '', count: 1 },
    { from: '      redis.call("zrem", k.ready, id);\n', to: '', count: 1 },
  ],
  /** ack leaves the id in its UNACK set, in the Lua only (the twin stays right). */
  luaOnlyAck: [{ from: "    if redis.call('zrem', unacks[i], id) > 0 then", to: "    if redis.call('zscore', unacks[i], id) then", count: 1 }],
  /** pop promotes every queued id, due or not, in the Lua and the twin: delayed messages are delivered early. */
  popIgnoresDelay: [
    { from: '  promote(queue, ready, meta, due_by)\n', to: "  promote(queue, ready, meta, '+inf')\n", count: 1 },
    { from: '  promote(redis, k.queue, k.ready, k.meta, dueBy);\n', to: '  promote(redis, k.queue, k.ready, k.meta, "+inf");\n', count: 1 },
  ],
} as const satisfies Record<string, readonly DistPatch[]>;

/** Copies the installed package `installed` to `dest` and plants `patches` in its dist/*.js; throws when a patch does not apply as expected. */
export function plantedCopy(installed: string, dest: string, patches: readonly DistPatch[]): void {
  cpSync(installed, dest, { recursive: true });
  const dist = join(dest, 'dist');
  const files = readdirSync(dist).filter((f) => f.endsWith('.js'));
  for (const p of patches) {
    let found = 0;
    for (const f of files) {
      const text = readFileSync(join(dist, f), 'utf8');
      const n = text.split(p.from).length - 1;
      if (n === 0) continue;
      found += n;
      writeFileSync(join(dist, f), text.split(p.from).join(p.to));
    }
    if (found !== p.count) throw new Error(`planting ${JSON.stringify(p.from)}: found ${found} times in dist/, expected ${p.count}`);
  }
}
