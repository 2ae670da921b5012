import { Redis } from 'ioredis';
import { startRedisServer, type RedisServer } from '../../src/real/processes/redis-server.js';
import { startSentinel as startOne, type RedisSentinel } from '../../src/real/processes/sentinel.js';

export type { RedisSentinel } from '../../src/real/processes/sentinel.js';

/**
 * One Sentinel on loopback watching `masterPort` as group `name`, quorum 1, with short timings so a
 * test sees a failover in seconds: down after 1 s, failover timeout 5 s.
 */
export function startSentinel(masterPort: number, name = 'mymaster'): Promise<RedisSentinel> {
  return startOne({ masterPort, name, quorum: 1, downAfterMs: 1_000, failoverTimeoutMs: 5_000 });
}

/** A primary, its replica (link up) and one Sentinel that sees the replica; `stop` ends all three. */
export interface SentinelGroup {
  readonly primary: RedisServer;
  readonly replica: RedisServer;
  readonly sentinel: RedisSentinel;
  /** A plain client of the Sentinel (for SENTINEL commands). */
  readonly sentinelClient: Redis;
  /** The port Sentinel names as the primary now. */
  primaryPort(): Promise<number>;
  stop(): Promise<void>;
}

export async function startSentinelGroup(until: (check: () => Promise<boolean>, what: string) => Promise<unknown>): Promise<SentinelGroup> {
  const primary = await startRedisServer();
  const replica = await startRedisServer({ args: ['--replicaof', '127.0.0.1', String(primary.port)] });
  const admin = new Redis({ port: replica.port, host: '127.0.0.1' });
  await until(async () => (await admin.info('replication')).includes('master_link_status:up'), 'the replica link');
  admin.disconnect();
  const sentinel = await startSentinel(primary.port);
  const sentinelClient = new Redis({ port: sentinel.port, host: '127.0.0.1' });
  await until(async () => ((await sentinelClient.call('sentinel', 'replicas', 'mymaster')) as unknown[]).length === 1, 'the sentinel to see the replica');
  return {
    primary,
    replica,
    sentinel,
    sentinelClient,
    async primaryPort() {
      const [, port] = (await sentinelClient.call('sentinel', 'get-master-addr-by-name', 'mymaster')) as [string, string];
      return Number(port);
    },
    async stop() {
      sentinelClient.disconnect();
      await sentinel.stop();
      await replica.stop();
      await primary.stop();
    },
  };
}
