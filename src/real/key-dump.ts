import type { Redis } from 'ioredis';
import { withProbe } from './processes/probe.js';

/** `prefix` as a SCAN MATCH pattern that matches only itself followed by anything. */
function globPrefix(prefix: string): string {
  return `${prefix.replace(/[\\*?[\]]/g, (c) => `\\${c}`)}*`;
}

/** Pairs as `[[a, b], ...]` from a flat `[a, b, ...]` reply. */
function pairs(flat: readonly string[]): [string, string][] {
  const out: [string, string][] = [];
  for (let i = 0; i + 1 < flat.length; i += 2) out.push([flat[i]!, flat[i + 1]!]);
  return out;
}

/**
 * One key's value as a string that is equal on two nodes exactly when the values are: a hash as its
 * field/value pairs sorted by field, a sorted set as its members with scores in rank order, a set
 * sorted, a list in order, a string as itself.
 */
async function canonicalValue(client: Redis, key: string): Promise<string | undefined> {
  const type = await client.type(key);
  switch (type) {
    case 'string':
      return (await client.get(key)) ?? undefined;
    case 'hash':
      return JSON.stringify(pairs(await client.call('HGETALL', key) as string[]).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
    case 'zset':
      return JSON.stringify(pairs(await client.zrange(key, 0, -1, 'WITHSCORES')));
    case 'set':
      return JSON.stringify((await client.smembers(key)).sort());
    case 'list':
      return JSON.stringify(await client.lrange(key, 0, -1));
    case 'none':
      return undefined; // deleted between SCAN and TYPE
    default:
      return `<${type}>`;
  }
}

/** Every key on the redis-server at 127.0.0.1:port that starts with `prefix`, with its canonical value. */
export async function dumpKeys(port: number, prefix: string): Promise<Record<string, string>> {
  return withProbe(port, async (client) => {
    const keys = new Set<string>();
    let cursor = '0';
    do {
      const [next, batch] = await client.scan(cursor, 'MATCH', globPrefix(prefix), 'COUNT', 1_000);
      cursor = next;
      for (const k of batch) keys.add(k);
    } while (cursor !== '0');
    const dump: Record<string, string> = {};
    for (const key of [...keys].sort()) {
      const value = await canonicalValue(client, key);
      if (value !== undefined) dump[key] = value;
    }
    return dump;
  }, 5_000);
}
