import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './free-port.js';
import { killOwned } from './owned-children.js';
import { requireRedisServerBinary, spawnAnswering } from './redis-server.js';

interface SentinelOptions {
  /** The primary to watch. */
  readonly masterPort: number;
  /** The master group name clients ask for. */
  readonly name: string;
  /** How many sentinels must agree the primary is down before a failover. */
  readonly quorum: number;
  /** `down-after-milliseconds`: how long the primary may not answer before it is subjectively down. */
  readonly downAfterMs: number;
  /** `failover-timeout`: also how long before a failed failover is retried. */
  readonly failoverTimeoutMs: number;
  /** `parallel-syncs` (default 1). */
  readonly parallelSyncs?: number;
}

/** One Sentinel (redis-server --sentinel) on a free loopback port, owned by this process. */
export interface RedisSentinel {
  readonly port: number;
  /** The URL `connect()` takes for this sentinel's master group. */
  readonly url: string;
  readonly process: ChildProcess;
  stop(): Promise<void>;
}

export async function startSentinel(options: SentinelOptions): Promise<RedisSentinel> {
  const binary = requireRedisServerBinary();
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'dynoq-sentinel-'));
  const conf = join(dir, 'sentinel.conf');
  const { name } = options;
  // Sentinel rewrites its configuration file as it learns the topology: it must be its own and writable.
  writeFileSync(
    conf,
    [
      `port ${port}`,
      'bind 127.0.0.1',
      `dir ${dir}`,
      `sentinel monitor ${name} 127.0.0.1 ${options.masterPort} ${options.quorum}`,
      `sentinel down-after-milliseconds ${name} ${options.downAfterMs}`,
      `sentinel failover-timeout ${name} ${options.failoverTimeoutMs}`,
      `sentinel parallel-syncs ${name} ${options.parallelSyncs ?? 1}`,
      '',
    ].join('\n'),
  );
  const child = await spawnAnswering(binary, [conf, '--sentinel'], port, 'redis-sentinel').catch((err: unknown) => {
    rmSync(dir, { recursive: true, force: true });
    throw err;
  });
  return {
    port,
    url: `redis-sentinel://127.0.0.1:${port}/${name}`,
    process: child,
    async stop() {
      await killOwned(child);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
