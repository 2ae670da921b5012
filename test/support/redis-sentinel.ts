import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, redisServerBinary, waitUntilAnswering } from './redis-server.js';

export interface RedisSentinel {
  readonly port: number;
  /** The URL `connect()` takes for this sentinel's master group. */
  readonly url: string;
  stop(): Promise<void>;
}

/**
 * One Sentinel on loopback watching `masterPort` as group `name`, quorum 1, with short timings so a
 * test sees a failover in seconds: down after 1 s, failover timeout 5 s.
 */
export async function startSentinel(masterPort: number, name = 'mymaster'): Promise<RedisSentinel> {
  const binary = redisServerBinary();
  if (!binary) throw new Error('redis-server is not installed (apt-get install -y redis-server)');
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'dynoq-sentinel-'));
  const conf = join(dir, 'sentinel.conf');
  // Sentinel rewrites its configuration file as it learns the topology: it must be writable.
  writeFileSync(
    conf,
    [
      `port ${port}`,
      'bind 127.0.0.1',
      `dir ${dir}`,
      `sentinel monitor ${name} 127.0.0.1 ${masterPort} 1`,
      `sentinel down-after-milliseconds ${name} 1000`,
      `sentinel failover-timeout ${name} 5000`,
      `sentinel parallel-syncs ${name} 1`,
      '',
    ].join('\n'),
  );
  const child = spawn(binary, [conf, '--sentinel'], { stdio: 'ignore' });
  await waitUntilAnswering(port, child);
  return {
    port,
    url: `redis-sentinel://127.0.0.1:${port}/${name}`,
    async stop() {
      child.kill('SIGTERM');
      if (child.exitCode === null && child.signalCode === null) await new Promise((r) => child.once('exit', r));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
