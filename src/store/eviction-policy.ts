import type { Cluster, Redis } from 'ioredis';
import { EvictionPolicyError } from './errors.js';

/**
 * What each `maxmemory-policy` does to a queue's keys when Redis is full (docs/CONNECTIONS.md). The
 * queue sets no TTL on any key, so the `volatile-*` policies never choose one of them: with no
 * volatile key to evict they refuse writes as `noeviction` does.
 */
const POLICY_EFFECTS: Readonly<Record<string, 'refuses writes' | 'evicts queue keys'>> = {
  noeviction: 'refuses writes',
  'volatile-lru': 'refuses writes',
  'volatile-lfu': 'refuses writes',
  'volatile-random': 'refuses writes',
  'volatile-ttl': 'refuses writes',
  'allkeys-lru': 'evicts queue keys',
  'allkeys-lfu': 'evicts queue keys',
  'allkeys-random': 'evicts queue keys',
};

/** True for a policy that can delete the queue's keys (an unknown policy counts as one). */
function evictsQueueKeys(policy: string): boolean {
  return POLICY_EFFECTS[policy] !== 'refuses writes';
}

/** `maxmemory_policy` from an `INFO memory` reply, or null when the server does not report it. */
function maxmemoryPolicy(info: string): string | null {
  const m = /^maxmemory_policy:(\S+)/m.exec(info);
  return m ? m[1]! : null;
}

/** Where a node is, for the error message. */
function nodeName(node: Redis): string {
  const o = node.options;
  return o.path ? o.path : `${o.host ?? '127.0.0.1'}:${o.port ?? 6379}`;
}

/**
 * The policy of every node the queue writes to: the server (the Sentinel's master, the Dynomite
 * node's own backend), or every master of a Cluster. Read with `INFO memory`, which managed Redis
 * keeps where it renames CONFIG.
 */
async function policies(client: Redis | Cluster): Promise<{ server: string; policy: string | null }[]> {
  if ((client as { isCluster?: boolean }).isCluster !== true) {
    const redis = client as Redis;
    return [{ server: nodeName(redis), policy: maxmemoryPolicy(await redis.info('memory')) }];
  }
  const cluster = client as Cluster;
  // A command through the Cluster client first: it connects and learns the slots' masters.
  const first = maxmemoryPolicy(await cluster.info('memory'));
  const masters = cluster.nodes('master');
  if (masters.length === 0) return [{ server: 'cluster', policy: first }];
  return Promise.all(masters.map(async (node) => ({ server: nodeName(node), policy: maxmemoryPolicy(await node.info('memory')) })));
}

/**
 * Refuses (EvictionPolicyError) or warns about a server whose policy may evict the queue's keys.
 * A server that refuses INFO (renamed or disabled) or does not report a policy is warned about
 * once and accepted: the check cannot tell.
 */
export async function checkEvictionPolicy(client: Redis | Cluster, mode: 'refuse' | 'warn'): Promise<void> {
  let found: { server: string; policy: string | null }[];
  try {
    found = await policies(client);
  } catch (err) {
    if (!(err instanceof Error && err.name === 'ReplyError')) throw err;
    process.emitWarning(`dynoq could not read Redis's maxmemory-policy (${err.message}); make sure it is noeviction`, {
      type: 'DynoqEvictionPolicy',
      code: 'EVICTION_POLICY',
    });
    return;
  }
  for (const { server, policy } of found) {
    if (policy === null) {
      process.emitWarning(`Redis ${server} does not report maxmemory_policy in INFO memory; make sure it is noeviction`, { type: 'DynoqEvictionPolicy', code: 'EVICTION_POLICY' });
    } else if (evictsQueueKeys(policy)) {
      const error = new EvictionPolicyError(policy, server);
      if (mode === 'refuse') throw error;
      process.emitWarning(error.message, { type: 'DynoqEvictionPolicy', code: 'EVICTION_POLICY' });
    }
  }
}
